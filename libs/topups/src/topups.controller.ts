import { Body, Controller, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses } from '@app/core';
import { CREATE_TOPUP_EXAMPLES, CreateTopupDto, CreateTopupResponseDto, TopupListDto, TopupsQueryDto, toTopupDto } from './dto/topup.dto';
import { TopupsService } from './topups.service';

@ApiTags('Top-ups')
@Controller('v1/topups')
export class TopupsController {
  constructor(private readonly topups: TopupsService) {}

  @Post()
  @HttpCode(201)
  @RequireScope('wallet:write')
  @ApiOperation({
    operationId: 'createTopup',
    summary: 'Fund a wallet',
    description:
      'Funds the primary wallet, or the wallet of `currency` (opened by its first top-up). In fake mode the top-up settles at once and `checkoutUrl` is null. In stripe mode the top-up is PENDING ' +
      'and `checkoutUrl` is a Stripe Checkout page; the wallet is credited (`wallet.credited`) when payment succeeds. ' +
      'Needs an API key with `write`: OAuth tokens can never fund a wallet (403).',
  })
  @ApiBodyExamples(CreateTopupDto, CREATE_TOPUP_EXAMPLES)
  @ApiErrorResponses(400, 502)
  async create(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: CreateTopupDto,
  ): Promise<CreateTopupResponseDto> {
    const { topup, checkoutUrl } = await this.topups.create(principal.accountId, body.amountCents, origin, body.currency);
    return { topup: toTopupDto(topup), checkoutUrl, paymentsMode: topup.provider };
  }

  @Get()
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'listTopups',
    summary: 'Top-ups, newest first',
    description: 'Page through with `page`, or walk with `starting_after` / `ending_before` (an id seen) and `hasMore`.',
  })
  @ApiErrorResponses(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: TopupsQueryDto): Promise<TopupListDto> {
    const window = { page: query.page, pageSize: query.page_size, startingAfter: query.starting_after, endingBefore: query.ending_before };
    const { items, total, hasMore } = await this.topups.list(principal.accountId, window);
    return { topups: items.map(toTopupDto), total, hasMore };
  }

  @Get(':id/receipt')
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'getTopupReceipt',
    summary: 'A PDF receipt of a settled top-up',
    description:
      'The top-up’s id, amount and currency, when it settled and the account’s name, under the account’s sender branding. ' +
      'Only a `SUCCEEDED` top-up has one (`422` otherwise); another account’s top-up is `404`.',
  })
  @ApiParam({ name: 'id', description: "The top-up's id (`tu_`).", example: 'tu_39FOvU37D5B21txEfKDOpo' })
  @ApiOkResponse({ description: 'The receipt, a PDF document.', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } })
  @ApiErrorResponses(404, 422)
  async receipt(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<StreamableFile> {
    const { topup, pdf } = await this.topups.receipt(principal.accountId, id);
    return new StreamableFile(pdf, { type: 'application/pdf', disposition: `attachment; filename="receipt-${topup.id}.pdf"`, length: pdf.length });
  }
}
