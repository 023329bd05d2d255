import { ApiProperty, OmitType } from '@nestjs/swagger';
import { WalletTransactionDto } from '@app/wallet';
import { CARD_STATUSES, CREDENTIAL_TYPES, RewardCardEntity } from '../entities/reward-card.entity';
import { RewardEventEntity } from '../entities/reward-event.entity';
import { RECIPIENT_LANGUAGES } from '@app/mail';
import { EMAIL_STATUSES, RewardEntity, SMS_STATUSES, REWARD_SOURCES, REWARD_STATUSES, REWARD_TYPES } from '../entities/reward.entity';

export class CredentialDto {
  /** What the value is, e.g. "Card number". */
  label: string;

  /** The value; all but the last 4 characters are masked unless `include_credentials=true`. */
  value: string;

  @ApiProperty({ enum: CREDENTIAL_TYPES })
  type: string;
}

export class IssuedCardDto {
  /** Card identifier (`card_`). */
  id: string;
  utid: string;
  /** Item name as the catalog gave it when the card was chosen. */
  rewardName: string;
  @ApiProperty({ type: 'integer', minimum: 1 })
  amountCents: number;
  currency: string;

  /** PENDING while issuing; ISSUED; FAILED (value re-credited); CANCELED (FIXED reward cancelled before issuance). */
  @ApiProperty({ enum: CARD_STATUSES })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  redemptionInstructions: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  issuedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  brandName: string;

  @ApiProperty({ type: String, nullable: true })
  brandImageUrl: string | null;

  /** Empty until the card is issued. */
  credentials: CredentialDto[];
}

export class RewardEventDto {
  /** The `evt_` id, the same as the webhook event's where there is one. */
  id: string;

  /**
   * A webhook event name that concerns this reward, or one the timeline alone keeps: `reward.resent`,
   * `reward.recipient_corrected` (metadata `from`, `to`: docs/delivery.md).
   */
  type: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

/** How a reward funded from another wallet was converted (`fundingCurrency`, docs/currencies.md). */
export interface RewardFxDto {
  /** The wallet the value was converted from. */
  fundingCurrency: string;
  /** Units of the reward's currency per one unit of `fundingCurrency`, as applied. */
  rate: number;
  /** What the send took from the `fundingCurrency` wallet, in its cents: `ceil(faceValueCents / rate)`. */
  fundedCents: number;
}

/**
 * The `fx` block as the contract describes it, on the reward and in the webhook payloads that carry
 * it: an inline nullable object (OpenAPI 3.0 has no nullable `$ref`).
 */
export const REWARD_FX_SCHEMA = {
  type: 'object' as const,
  nullable: true,
  required: ['fundingCurrency', 'rate', 'fundedCents'],
  properties: {
    fundingCurrency: {
      type: 'string' as const,
      pattern: '^[A-Z]{3}$',
      minLength: 3,
      maxLength: 3,
      example: 'USD',
      description: 'The wallet the value was converted from.',
    },
    rate: {
      type: 'number' as const,
      minimum: 0.00000001,
      example: 0.92,
      description: "Units of the reward's currency per one unit of `fundingCurrency`, as applied (markup included, 8 decimals at most).",
    },
    fundedCents: {
      type: 'integer' as const,
      format: 'int64',
      minimum: 1,
      description: "What the send took from the `fundingCurrency` wallet, in its cents: `ceil(valueCents / rate)`.",
    },
  },
};

/** The approval of a send at or above the account's threshold (docs/controls.md, Approvals). */
export interface RewardApprovalDto {
  status: 'PENDING' | 'APPROVED' | 'REJECTED';
  /** The dashboard user who decided; null while pending and for the rejection after 30 days undecided. */
  decidedBy: { type: 'user'; id: string; label: string } | null;
  decidedAt: string | null;
}

export const REWARD_APPROVAL_SCHEMA = {
  type: 'object' as const,
  nullable: true,
  required: ['status', 'decidedBy', 'decidedAt'],
  properties: {
    status: { type: 'string' as const, enum: ['PENDING', 'APPROVED', 'REJECTED'] },
    decidedBy: {
      type: 'object' as const,
      nullable: true,
      required: ['type', 'id', 'label'],
      description: 'The dashboard user who decided (`label`: their e-mail); null while pending and for the rejection after 30 days undecided.',
      properties: {
        type: { type: 'string' as const, enum: ['user'] },
        id: { type: 'string' as const, description: '`usr_`' },
        label: { type: 'string' as const },
      },
    },
    decidedAt: { type: 'string' as const, format: 'date-time', nullable: true },
  },
};

/** `createdBy` of a reward, inline as `approval` is (an object or null). */
export const REWARD_CREATOR_SCHEMA = {
  type: 'object' as const,
  nullable: true,
  required: ['type', 'id', 'label'],
  properties: {
    type: { type: 'string' as const, enum: ['user', 'api_key', 'oauth_app', 'operator'] },
    id: { type: 'string' as const, description: 'The user (`usr_`), API key (`key_`) or connected app (`oac_`).' },
    label: { type: 'string' as const, nullable: true, description: "The user's e-mail, the key's name or the app's name; null when unnamed." },
  },
};

/**
 * Who sent a reward (docs/rewards.md, Who sent it): a dashboard user (`label`: their e-mail), an API
 * key (its name) or a connected app (its name).
 */
export class RewardCreatorDto {
  @ApiProperty({ enum: ['user', 'api_key', 'oauth_app', 'operator'] })
  type: 'user' | 'api_key' | 'oauth_app' | 'operator';

  /** The user's (`usr_`), key's (`key_`) or app's (`oac_`) id: what `GET /v1/rewards?created_by=` takes. */
  id: string;

  /** Null when the key has no name or its sender is gone. */
  @ApiProperty({ type: String, nullable: true })
  label: string | null;
}

export class RewardDto {
  /** Reward identifier (`rw_`). */
  id: string;

  @ApiProperty({ enum: REWARD_TYPES })
  type: string;

  @ApiProperty({ enum: REWARD_STATUSES })
  status: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  faceValueCents: number;
  /** Value not yet turned into cards. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  remainingValueCents: number;
  /** The reward's currency: its value, its cards and the wallet it is held in (and returns to on cancel, expiry or a failed card). */
  currency: string;

  @ApiProperty({
    ...REWARD_FX_SCHEMA,
    // Always present (null when not converted); `required` above lists the block's own fields.
    selfRequired: true,
    description: "Set when the send converted the value from another wallet (`fundingCurrency`); null when it was held from the reward currency's own wallet.",
  })
  fx: RewardFxDto | null;

  @ApiProperty({
    ...REWARD_APPROVAL_SCHEMA,
    selfRequired: true,
    description:
      'Set when the send was at or above the account’s approval threshold: `PENDING` (it stays `CREATED`, nothing reaches the recipient), ' +
      '`APPROVED` (sent) or `REJECTED` (cancelled, its value returned). Null when it needed no approval.',
  })
  approval: RewardApprovalDto | null;

  recipientEmail: string;
  recipientFirstName: string;

  @ApiProperty({ type: String, nullable: true })
  recipientLastName: string | null;

  /** The language of the e-mail and the redemption page; null: English, and the page follows the browser. */
  // OpenAPI 3.0: a nullable enum lists null among its values.
  @ApiProperty({ type: String, enum: [...RECIPIENT_LANGUAGES, null], nullable: true })
  recipientLanguage: string | null;

  /**
   * The latest e-mail: QUEUED until the recipient's mail server accepts it (DELIVERED) or refuses it
   * for good (FAILED, with `reward.delivery_failed`); SCHEDULED while a send waits for its delivery time.
   */
  @ApiProperty({ enum: EMAIL_STATUSES })
  emailStatus: string;

  /** The recipient's mobile number (E.164) the text went to; null when the send gave none. */
  @ApiProperty({ type: String, nullable: true, example: '+14155550123' })
  recipientPhone: string | null;

  /**
   * The latest text message (docs/delivery.md, SMS): QUEUED until the SMS provider takes it (SENT) or
   * refuses it for good (FAILED, with `reward.delivery_failed` of `channel` sms). Null without a phone.
   */
  // OpenAPI 3.0: a nullable enum lists null among its values.
  @ApiProperty({ type: String, enum: [...SMS_STATUSES, null], nullable: true })
  smsStatus: string | null;

  @ApiProperty({ type: String, nullable: true })
  message: string | null;

  /** FIXED: the catalog item. */
  @ApiProperty({ type: String, nullable: true })
  utid: string | null;

  /** CHOICE: the brands the recipient may pick from; null means the whole catalog. */
  @ApiProperty({ type: [String], nullable: true })
  allowedBrandKeys: string[] | null;

  @ApiProperty({ type: String, nullable: true })
  campaign: string | null;

  @ApiProperty({ type: String, nullable: true })
  externalId: string | null;

  /** How it was sent: api, bulk, dashboard or oauth. */
  @ApiProperty({ enum: REWARD_SOURCES })
  source: string;

  @ApiProperty({
    ...REWARD_CREATOR_SCHEMA,
    selfRequired: true,
    description:
      'Who sent it: a dashboard user (`label`: their e-mail), an API key (its name) or a connected app (its ' +
      'name); `id` is what `created_by=` takes. Null for a reward sent before senders were recorded.',
  })
  createdBy: RewardCreatorDto | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expiresAt: string | null;

  /** A scheduled send's delivery time (docs/delivery.md, Scheduled sends); null for one sent at once. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  deliverAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  sentAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  openedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  redeemedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  /** FIXED: brand at send time. */
  @ApiProperty({ type: String, nullable: true })
  brandName: string | null;

  @ApiProperty({ type: String, nullable: true })
  brandImageUrl: string | null;

  issuedCards: IssuedCardDto[];

  /** Timeline, oldest first. */
  events: RewardEventDto[];
}

export class RewardResponseDto {
  reward: RewardDto;

  /**
   * The reward's redemption link (`{base_url}/r/{token}`), the one the create response and every
   * e-mail carry; only with `include_credentials=true`.
   */
  redemptionUrl?: string;
}

export class CreateRewardResponseDto {
  reward: RewardDto;

  /** The recipient's link (`{base_url}/r/{token}`): the reward's one link, which every e-mail and resend carries too. */
  redemptionUrl: string;
}

export class DryRunIssuedCardDto extends OmitType(IssuedCardDto, ['id'] as const) {}

export class DryRunRewardEventDto extends OmitType(RewardEventDto, ['id'] as const) {}

/** The reward a send would create, without the ids it would get. */
export class DryRunRewardDto extends OmitType(RewardDto, ['id', 'issuedCards', 'events'] as const) {
  issuedCards: DryRunIssuedCardDto[];
  events: DryRunRewardEventDto[];
}

/** A dry run's answer (`dry_run=true`): the reward as it would be created, with `fx` when converted; nothing held, stored or sent. */
export class DryRunRewardResponseDto {
  reward: DryRunRewardDto;
}

export class RewardListDto {
  rewards: RewardDto[];
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
  @ApiProperty({ type: 'integer', minimum: 1 })
  page: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  pageSize: number;
  /** Whether more rewards follow: older ones, or newer ones when the page was asked with `ending_before`. */
  hasMore: boolean;
}

export class BulkResultDto {
  /** Position of the item in the request. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  index: number;
  ok: boolean;

  @ApiProperty({ type: String, nullable: true })
  rewardId: string | null;

  /** `<code>: <message>` of the item's failure; `skipped: insufficient_funds` once the wallet ran out. */
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class BulkResponseDto {
  /** True when nothing was charged, stored or sent (`dry_run=true`). */
  dryRun: boolean;
  @ApiProperty({ type: 'integer', minimum: 0 })
  sent: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  failed: number;
  results: BulkResultDto[];
}

/**
 * A reward's money trail (docs/rewards.md, Money trail). Always heldCents = capturedCents +
 * releasedCents + the reward's remainingValueCents + the amounts of its PENDING cards.
 */
export class RewardLedgerDto {
  /** Every wallet transaction of the reward and of its cards, oldest first. */
  transactions: WalletTransactionDto[];
  /** Held from the wallet when the reward was sent (in the reward's currency). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  heldCents: number;
  /** Spent on issued cards. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  capturedCents: number;
  /** Returned to the wallet: cancelled or expired value, failed cards. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  releasedCents: number;
  /** Converted into the reward's currency from another wallet to fund it (0 when its own wallet paid). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  convertedCents: number;
}

export interface RewardView {
  reward: RewardEntity;
  cards: RewardCardEntity[];
  events: RewardEventEntity[];
  /** The sender's label (`createdBy.label`), read with the reward. */
  createdByLabel?: string | null;
}

/** All but the last 4 characters hidden: enough to tell cards apart, not to spend them. */
export function maskCredential(value: string): string {
  return value.length <= 4 ? '•'.repeat(value.length) : `${'•'.repeat(value.length - 4)}${value.slice(-4)}`;
}

export function toIssuedCardDto(card: RewardCardEntity, revealCredentials: boolean): IssuedCardDto {
  return {
    id: card.id,
    utid: card.utid,
    rewardName: card.rewardName,
    amountCents: card.amountCents,
    currency: card.currency,
    status: card.status,
    redemptionInstructions: card.redemptionInstructions,
    issuedAt: card.issuedAt?.toISOString() ?? null,
    createdAt: card.createdAt.toISOString(),
    brandName: card.brandName,
    brandImageUrl: card.brandImageUrl,
    credentials: (card.credentials ?? []).map((c) => ({
      label: c.label,
      value: revealCredentials || c.type === 'date' ? c.value : maskCredential(c.value),
      type: c.type,
    })),
  };
}

export function toRewardDto({ reward, cards, events, createdByLabel }: RewardView, revealCredentials = false): RewardDto {
  return {
    id: reward.id,
    type: reward.type,
    status: reward.status,
    faceValueCents: reward.faceValueCents,
    remainingValueCents: reward.remainingValueCents,
    currency: reward.currency,
    fx: rewardFxOf(reward),
    approval: rewardApprovalOf(reward),
    recipientEmail: reward.recipientEmail,
    recipientFirstName: reward.recipientFirstName,
    recipientLastName: reward.recipientLastName,
    recipientLanguage: reward.recipientLanguage,
    emailStatus: reward.emailStatus,
    recipientPhone: reward.recipientPhone,
    smsStatus: reward.smsStatus,
    message: reward.message,
    utid: reward.utid,
    allowedBrandKeys: reward.allowedBrandKeys,
    campaign: reward.campaign,
    externalId: reward.externalId,
    source: reward.source,
    createdBy: reward.createdByType && reward.createdById ? { type: reward.createdByType, id: reward.createdById, label: createdByLabel ?? null } : null,
    expiresAt: reward.expiresAt?.toISOString() ?? null,
    deliverAt: reward.deliverAt?.toISOString() ?? null,
    sentAt: reward.sentAt?.toISOString() ?? null,
    openedAt: reward.openedAt?.toISOString() ?? null,
    redeemedAt: reward.redeemedAt?.toISOString() ?? null,
    createdAt: reward.createdAt.toISOString(),
    brandName: reward.brandName,
    brandImageUrl: reward.brandImageUrl,
    issuedCards: cards.map((card) => toIssuedCardDto(card, revealCredentials)),
    events: events.map((e) => ({ id: e.id, type: e.type, metadata: e.metadata, createdAt: e.createdAt.toISOString() })),
  };
}

/** The `approval` block of a send that needed approval, or null. */
export function rewardApprovalOf(
  reward: Pick<RewardEntity, 'approvalStatus' | 'approvalDecidedById' | 'approvalDecidedByLabel' | 'approvalDecidedAt'>,
): RewardApprovalDto | null {
  if (reward.approvalStatus === null) return null;
  return {
    status: reward.approvalStatus,
    decidedBy: reward.approvalDecidedById ? { type: 'user', id: reward.approvalDecidedById, label: reward.approvalDecidedByLabel ?? '' } : null,
    decidedAt: reward.approvalDecidedAt?.toISOString() ?? null,
  };
}

/** The `fx` block of a reward funded from another wallet, or null. */
export function rewardFxOf(reward: Pick<RewardEntity, 'fxFundingCurrency' | 'fxRate' | 'fxFundedCents'>): RewardFxDto | null {
  if (reward.fxFundingCurrency === null || reward.fxRate === null || reward.fxFundedCents === null) return null;
  // PostgreSQL's numeric text ("0.92000000") and the send's ("0.92") read as the same number.
  return { fundingCurrency: reward.fxFundingCurrency, rate: Number(reward.fxRate), fundedCents: reward.fxFundedCents };
}

/** The dry run's view of a reward that is not created: no ids (docs/rewards.md, Dry run). */
export function toDryRunRewardDto(view: RewardView): DryRunRewardDto {
  const { id: _id, issuedCards, events, ...reward } = toRewardDto(view);
  return {
    ...reward,
    issuedCards: issuedCards.map(({ id: _card, ...card }) => card),
    events: events.map(({ id: _event, ...event }) => event),
  };
}
