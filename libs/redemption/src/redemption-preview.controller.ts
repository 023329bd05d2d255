import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireDashboardScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { RECIPIENT_LANGUAGES, recipientTexts } from '@app/mail';
import { renderRedemptionPage } from './redemption-page';
import { RedemptionService } from './redemption.service';

/**
 * The sender's preview of a recipient page, from the dashboard's reward page (docs/redemption.md,
 * Preview). Authorised by the dashboard session, never by the link token: it reads the reward
 * without opening it, so the reward keeps its status, no `reward.opened` is recorded and nothing
 * can be picked.
 */
@ApiTags('Rewards')
@Controller('dashboard/api/rewards')
export class RedemptionPreviewController {
  constructor(private readonly redemption: RedemptionService) {}

  @Get(':rewardId/recipient-preview')
  @RequireDashboardScope('rewards:read')
  @ApiOperation({
    operationId: 'previewRecipientPage',
    summary: 'The recipient page of a reward as its recipient sees it, without opening it',
    description:
      'An HTML page in the recipient’s language (else the browser’s), with a banner saying it is a preview. The reward is not ' +
      'marked opened and no `reward.opened` event is recorded; card codes are hidden and no card can be picked.',
  })
  @ApiParam({ name: 'rewardId', description: 'The reward (`rw_`).' })
  @ApiOkResponse({ description: 'The preview page.', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiErrorResponses(404)
  async preview(
    @CurrentPrincipal() principal: Principal,
    @Param('rewardId') rewardId: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const state = await this.redemption.preview(principal.accountId, rewardId);
    const texts = recipientTexts(state.reward.language ?? (acceptLanguage ? res.req.acceptsLanguages(...RECIPIENT_LANGUAGES) || null : null));
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Language', texts.language);
    res.status(200).type('html').send(renderRedemptionPage(state, texts, { preview: true }));
  }
}
