import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses, Clock, dateRange, ForbiddenError, InsufficientScopeError, parseIdempotencyKey } from '@app/core';
import {
  BULK_CREATE_REWARDS_EXAMPLES,
  BulkCreateRewardsDto,
  CREATE_REWARD_EXAMPLES,
  CreateRewardDto,
  UPDATE_REWARD_EXAMPLES,
  UpdateRewardDto,
} from './dto/create-reward.dto';
import {
  BulkResponseDto,
  CreateRewardResponseDto,
  DryRunRewardDto,
  DryRunRewardResponseDto,
  RewardLedgerDto,
  RewardListDto,
  RewardResponseDto,
  toRewardDto,
} from './dto/reward.dto';
import { DryRunQueryDto, GetRewardQueryDto, ListRewardsQueryDto } from './dto/reward-query.dto';
import { rewardListFilterOf } from './reward-reports';
import { RewardSender, SendOutcome } from './reward-sender.service';
import { RewardsService } from './rewards.service';

/** A reward id, as the examples of /docs show it. */
const REWARD_ID = { name: 'id', description: "The reward's id (`rw_`).", example: 'rw_39FOvU37D5B21txEfKDOpo' };

/**
 * How long a key is recognised, in the words docs/idempotency.md (Rules) uses too: key rows are never deleted, and a
 * key is found while the key-ring key it was hashed under is in the ring (docs/secrets.md, Rotation).
 */
const IDEMPOTENCY_KEY_RETENTION =
  'Keys do not expire: a retry is recognised at least 24 h after the first use, and in practice for good; only an ' +
  "operator's encryption-key rotation ends it, for keys first used before the rotation, and no sooner than 24 h after it.";

/** A replay answers 200 for a single send (its first answer was 201) and 207 again for a bulk send. */
const idempotencyHeader = (replayStatus: string) => ({
  name: 'Idempotency-Key',
  required: false,
  description:
    'Up to 100 characters, scoped to your account. A retry with the same key and body replays the first response with ' +
    `status ${replayStatus} and \`Idempotent-Replayed: true\`; the same key with another body is 422. ` +
    IDEMPOTENCY_KEY_RETENTION,
});

@ApiTags('Rewards')
@Controller('v1/rewards')
export class RewardsController {
  constructor(
    private readonly sender: RewardSender,
    private readonly rewards: RewardsService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @RequireScope('rewards:write')
  @ApiOperation({
    operationId: 'createReward',
    summary: 'Send a reward',
    description:
      "Holds the value in the wallet of the reward's currency (a FIXED reward's item's; a CHOICE reward's `currency`, default the " +
      'primary one) and e-mails the recipient a redemption link. Too little in that wallet, or no wallet in that currency: 402 naming ' +
      'it. With `fundingCurrency` the whole value is converted from that wallet at the current rate in the same transaction, and the ' +
      'reward shows `fx`; too little there: 402 naming it; rates older than 24 h: 503.',
  })
  @ApiHeader(idempotencyHeader('200'))
  @ApiBodyExamples(CreateRewardDto, CREATE_REWARD_EXAMPLES)
  @ApiExtraModels(CreateRewardResponseDto, DryRunRewardDto)
  @ApiResponse({ status: 201, type: CreateRewardResponseDto, description: 'Created; funds held; e-mail queued.' })
  @ApiResponse({
    status: 200,
    description:
      'An idempotent replay of the first response (`Idempotent-Replayed: true`; it has `reward` and `redemptionUrl`), or the answer ' +
      'of a dry run (`dry_run=true`): `reward` as it would be created, without ids, with `fx` when it would be converted; nothing is ' +
      'held, stored or sent, and no `Idempotency-Key` is consumed.',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(CreateRewardResponseDto) },
        // DryRunRewardResponseDto, closed: it is told from a replay by having no `redemptionUrl`.
        { type: 'object', required: ['reward'], additionalProperties: false, properties: { reward: { $ref: getSchemaPath(DryRunRewardDto) } } },
      ],
    },
  })
  @ApiErrorResponses(400, 402, 422)
  async create(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: CreateRewardDto,
    @Query() query: DryRunQueryDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CreateRewardResponseDto | DryRunRewardResponseDto> {
    const outcome = await this.sender.send(principal, body, { idempotencyKey: parseIdempotencyKey(idempotencyKey), dryRun: query.dry_run, origin });
    return answer(response, outcome);
  }

  @Post('bulk')
  @RequireScope('rewards:write')
  @ApiOperation({
    operationId: 'createRewardsBulk',
    summary: 'Send up to 500 rewards',
    description:
      'Items are processed in order; an invalid item fails alone. Each item takes `currency` and `fundingCurrency` as a single ' +
      'send does. The first item its wallet (the funding one, if any) cannot afford ends processing: it and every later item are ' +
      '`skipped: insufficient_funds`. `sent + failed` is the number of items.',
  })
  @ApiHeader(idempotencyHeader('207'))
  @ApiBodyExamples(BulkCreateRewardsDto, BULK_CREATE_REWARDS_EXAMPLES)
  @ApiResponse({ status: 207, type: BulkResponseDto })
  @ApiErrorResponses(400, 422)
  async bulk(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: BulkCreateRewardsDto,
    @Query() query: DryRunQueryDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BulkResponseDto> {
    const outcome = await this.sender.sendBulk(principal, body.rewards, {
      idempotencyKey: parseIdempotencyKey(idempotencyKey),
      dryRun: query.dry_run,
      origin,
    });
    return answer(response, outcome);
  }

  @Get()
  @RequireScope('rewards:read')
  @ApiOperation({
    operationId: 'listRewards',
    summary: 'Rewards, newest first',
    description:
      'Page through with `page`, or walk with a cursor: `starting_after` (the last id seen) answers the older rewards, ' +
      '`ending_before` (the first id seen) the newer ones; `hasMore` says whether more follow in that direction. Filters: ' +
      '`status`, `external_id`, `type`, `campaign`, `currency`, a creation range (`created_gte` / `created_lt`, at most 366 days), ' +
      "`recipient` (a case-insensitive prefix of the recipient's e-mail, first or last name) and `created_by` (who sent it, " +
      '`createdBy.id`). `sort`: `-createdAt` (default), `createdAt`, `-faceValueCents` or `faceValueCents`, ties broken by id; ' +
      'cursors follow the sort.',
  })
  @ApiErrorResponses(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListRewardsQueryDto): Promise<RewardListDto> {
    const window = { page: query.page, pageSize: query.page_size, startingAfter: query.starting_after, endingBefore: query.ending_before };
    const created = dateRange({ gte: query.created_gte, lt: query.created_lt }, this.clock.now());
    const filters = rewardListFilterOf(query, created);
    const { views, total, hasMore } = await this.rewards.list(principal.accountId, filters, window, query.sort);
    return { rewards: views.map((view) => toRewardDto(view)), total, page: query.page, pageSize: query.page_size, hasMore };
  }

  @Get(':id')
  @RequireScope('rewards:read')
  @ApiOperation({
    operationId: 'getReward',
    summary: 'One reward with its cards and timeline',
    description:
      'Credentials are masked unless `include_credentials=true`, which needs the `rewards:write` scope and also returns the ' +
      "reward's `redemptionUrl` (the create response's link).",
  })
  @ApiParam(REWARD_ID)
  @ApiErrorResponses(400, 404)
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: GetRewardQueryDto): Promise<RewardResponseDto> {
    if (query.include_credentials && !principal.scopes.has('rewards:write')) {
      const message = 'include_credentials=true needs the rewards:write scope.';
      throw principal.credentialKind === 'session' ? new ForbiddenError(message) : new InsufficientScopeError('rewards:write', message);
    }
    const view = await this.rewards.get(principal.accountId, id);
    const body: RewardResponseDto = { reward: toRewardDto(view, query.include_credentials) };
    if (query.include_credentials) body.redemptionUrl = await this.rewards.redemptionUrl(view.reward);
    return body;
  }

  @Get(':id/ledger')
  @RequireScope('rewards:read')
  @ApiOperation({
    operationId: 'getRewardLedger',
    summary: "The reward's money trail",
    description:
      'Every wallet transaction of the reward and of its cards, oldest first, with their totals: `heldCents` always equals ' +
      '`capturedCents + releasedCents + remainingValueCents` plus the value of the cards still PENDING. Needs `wallet:read` too.',
  })
  @ApiParam(REWARD_ID)
  @ApiErrorResponses(404)
  async ledger(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<RewardLedgerDto> {
    if (!principal.scopes.has('wallet:read')) {
      const message = "A reward's ledger needs the wallet:read scope too.";
      throw principal.credentialKind === 'session' ? new ForbiddenError(message) : new InsufficientScopeError('wallet:read', message);
    }
    return this.rewards.ledger(principal.accountId, id);
  }

  @Patch(':id')
  @RequireScope('rewards:write')
  @ApiOperation({
    operationId: 'updateReward',
    summary: "Correct the recipient's address",
    description:
      'Sets `recipient.email` and e-mails the reward again to it, with the same link (`emailStatus` QUEUED again). Only while the ' +
      'reward is not yet opened and has value left (a FIXED reward: not cancelled or expired; a CHOICE reward: value not yet ' +
      'picked); otherwise 422. Adds `reward.recipient_corrected` to the timeline and to the audit log.',
  })
  @ApiParam(REWARD_ID)
  @ApiBodyExamples(UpdateRewardDto, UPDATE_REWARD_EXAMPLES)
  @ApiErrorResponses(400, 404, 422)
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('id') id: string,
    @Body() body: UpdateRewardDto,
  ): Promise<RewardResponseDto> {
    return { reward: toRewardDto(await this.rewards.correctRecipient(principal.accountId, id, body.recipient.email, origin)) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScope('rewards:write')
  @ApiOperation({
    operationId: 'cancelReward',
    summary: 'Cancel an unredeemed reward',
    description: 'Value not yet turned into cards returns to the wallet; issued cards stay valid. REDEEMED, CANCELED and EXPIRED rewards give 422.',
  })
  @ApiParam(REWARD_ID)
  @ApiErrorResponses(404, 422)
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('id') id: string,
  ): Promise<RewardResponseDto> {
    return { reward: toRewardDto(await this.rewards.cancel(principal.accountId, id, origin)) };
  }

  @Post(':id/resend')
  @HttpCode(200)
  @RequireScope('rewards:write')
  @ApiOperation({
    operationId: 'resendReward',
    summary: 'E-mail the recipient again',
    description:
      'Allowed in any state except before a scheduled delivery (`422`: nothing was sent yet). Repeats every channel the reward has: ' +
      'the e-mail, and the text message when it has a phone (`emailStatus` and `smsStatus` QUEUED again); adds `reward.resent` to ' +
      'the timeline once per channel, and to the audit log.',
  })
  @ApiParam(REWARD_ID)
  @ApiErrorResponses(404)
  async resend(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('id') id: string,
  ): Promise<RewardResponseDto> {
    return { reward: toRewardDto(await this.rewards.resend(principal.accountId, id, origin)) };
  }
}

function answer<T>(response: Response, outcome: SendOutcome<T>): T {
  response.status(outcome.status);
  if (outcome.replayed) response.setHeader('Idempotent-Replayed', 'true');
  return outcome.body;
}
