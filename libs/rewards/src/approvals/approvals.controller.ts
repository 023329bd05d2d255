import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireDashboardScope, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses } from '@app/core';
import { RewardResponseDto, toRewardDto } from '../dto/reward.dto';
import {
  ApprovalSettingsResponseDto,
  PendingApprovalListDto,
  UPDATE_APPROVAL_SETTINGS_EXAMPLES,
  UpdateApprovalSettingsDto,
} from './approval-settings.dto';
import { Approvals } from './approvals.service';

@ApiTags('Account')
@Controller('v1/account/approval-settings')
export class ApprovalSettingsController {
  constructor(private readonly approvals: Approvals) {}

  @Get()
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getApprovalSettings', summary: 'The approval threshold of sends' })
  async get(@CurrentPrincipal() principal: Principal): Promise<ApprovalSettingsResponseDto> {
    return { approvalSettings: await this.approvals.settings(principal.accountId) };
  }

  @Put()
  @RequireScope('account:write')
  @ApiOperation({
    operationId: 'updateApprovalSettings',
    summary: 'Set the approval threshold of sends',
    description:
      'A send worth `thresholdCents` or more (in the primary currency; other currencies at the current mid rate), from any credential, ' +
      'is created with its value held and stays `CREATED` with `approval.status` `PENDING` until a dashboard admin or owner other than ' +
      'its sender approves or rejects it (webhook event `reward.approval_required`); undecided after 30 days, it is rejected. ' +
      '`null`: no send needs approval. Needs an API key with `write`; OAuth tokens cannot change it (403).',
  })
  @ApiBodyExamples(UpdateApprovalSettingsDto, UPDATE_APPROVAL_SETTINGS_EXAMPLES)
  @ApiErrorResponses(400)
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: UpdateApprovalSettingsDto,
  ): Promise<ApprovalSettingsResponseDto> {
    return { approvalSettings: await this.approvals.updateSettings(principal.accountId, body.approvalSettings.thresholdCents, origin) };
  }
}

const REWARD_ID = { name: 'rewardId', description: 'The reward (`rw_`) waiting for approval.' };

@ApiTags('Approvals')
@Controller('dashboard/api/approvals')
export class ApprovalsController {
  constructor(private readonly approvals: Approvals) {}

  @Get()
  @RequireDashboardScope('rewards:read')
  @ApiOperation({ operationId: 'listPendingApprovals', summary: 'Sends waiting for approval, oldest first (at most 200)' })
  async list(@CurrentPrincipal() principal: Principal): Promise<PendingApprovalListDto> {
    const views = await this.approvals.pending(principal.accountId);
    const labels = await this.approvals.senderLabels(views);
    return {
      approvals: views.map((view) => {
        const { createdByType: type, createdById: id } = view.reward;
        return { reward: toRewardDto(view), createdBy: type && id ? { type, id, label: labels.get(id) ?? null } : null };
      }),
    };
  }

  @Get('count')
  @RequireDashboardScope('rewards:read')
  @ApiOperation({ operationId: 'countPendingApprovals', summary: 'How many sends wait for approval (the navigation badge)' })
  @ApiResponse({ status: 200, schema: { type: 'object', required: ['count'], properties: { count: { type: 'integer', minimum: 0 } } } })
  async count(@CurrentPrincipal() principal: Principal): Promise<{ count: number }> {
    return { count: await this.approvals.pendingCount(principal.accountId) };
  }

  @Post(':rewardId/approve')
  @HttpCode(200)
  @RequireDashboardScope('rewards:write')
  @ApiOperation({
    operationId: 'approveReward',
    summary: 'Approve a send: it goes out as a normal send',
    description: 'Admins and owners only, never the user who sent it (403). Already decided, or no longer `CREATED`: 422.',
  })
  @ApiParam(REWARD_ID)
  @ApiErrorResponses(404, 422)
  async approve(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('rewardId') id: string,
  ): Promise<RewardResponseDto> {
    return { reward: toRewardDto(await this.approvals.decide(principal, id, 'approve', origin)) };
  }

  @Post(':rewardId/reject')
  @HttpCode(200)
  @RequireDashboardScope('rewards:write')
  @ApiOperation({
    operationId: 'rejectReward',
    summary: 'Reject a send: it is cancelled and its whole value returned',
    description: 'Admins and owners only, never the user who sent it (403). Already decided, or no longer `CREATED`: 422.',
  })
  @ApiParam(REWARD_ID)
  @ApiErrorResponses(404, 422)
  async reject(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('rewardId') id: string,
  ): Promise<RewardResponseDto> {
    return { reward: toRewardDto(await this.approvals.decide(principal, id, 'reject', origin)) };
  }
}
