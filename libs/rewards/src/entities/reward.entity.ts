import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintCents } from '@app/core';

export const REWARD_TYPES = ['FIXED', 'CHOICE'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];
export const REWARD_STATUSES = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED'] as const;
export type RewardStatus = (typeof REWARD_STATUSES)[number];
/** Statuses in which value may still be used, cancelled or expired. */
export const OPEN_REWARD_STATUSES: RewardStatus[] = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED'];
/** Where the reward's latest e-mail stands (docs/delivery.md); SCHEDULED is for a send that waits for its delivery time. */
export const EMAIL_STATUSES = ['SCHEDULED', 'QUEUED', 'DELIVERED', 'FAILED'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];
/** Where the reward's latest text message stands (docs/delivery.md, SMS); null without a phone. */
export const SMS_STATUSES = ['QUEUED', 'SENT', 'FAILED'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];
/** The statuses in which a reward with value left gets reminders (docs/delivery.md, Reminders). */
export const REMINDABLE_STATUSES: RewardStatus[] = ['SENT', 'OPENED', 'PARTIALLY_REDEEMED'];
export const REWARD_SOURCES = ['api', 'bulk', 'dashboard', 'oauth'] as const;
export type RewardSource = (typeof REWARD_SOURCES)[number];
export const CREATOR_TYPES = ['user', 'api_key', 'oauth_app', 'operator'] as const;
export type CreatorType = (typeof CREATOR_TYPES)[number];
export const APPROVAL_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

@Entity('rewards')
export class RewardEntity {
  /** Insertion order, for a stable newest-first listing. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, select: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column('text')
  type: RewardType;

  @Column('text')
  status: RewardStatus;

  @Column({ name: 'face_value_cents', type: 'bigint', transformer: bigintCents })
  faceValueCents: number;

  /** Value not yet committed to any card. */
  @Column({ name: 'remaining_value_cents', type: 'bigint', transformer: bigintCents })
  remainingValueCents: number;

  @Column({ type: 'character', length: 3 })
  currency: string;

  /**
   * A send funded from another wallet (`fundingCurrency`, docs/currencies.md): the wallet the value
   * was converted from, the rate applied (units of `currency` per one unit of it) and the amount
   * taken from it. All three null for a reward held from its own currency's wallet.
   */
  @Column({ name: 'fx_funding_currency', type: 'character', length: 3, nullable: true })
  fxFundingCurrency: string | null;

  /** The rate as PostgreSQL's exact decimal text (8 places). */
  @Column({ name: 'fx_rate', type: 'numeric', precision: 24, scale: 8, nullable: true })
  fxRate: string | null;

  @Column({ name: 'fx_funded_cents', type: 'bigint', nullable: true, transformer: bigintCents })
  fxFundedCents: number | null;

  @Column({ name: 'recipient_email', type: 'text' })
  recipientEmail: string;

  @Column({ name: 'recipient_first_name', type: 'text' })
  recipientFirstName: string;

  @Column({ name: 'recipient_last_name', type: 'text', nullable: true })
  recipientLastName: string | null;

  /** The language the e-mail and the page speak (docs/recipient-language.md); null: English, the page follows the browser. */
  @Column({ name: 'recipient_language', type: 'text', nullable: true })
  recipientLanguage: string | null;

  @Column({ name: 'email_status', type: 'text', default: 'QUEUED' })
  emailStatus: EmailStatus;

  /** The recipient's mobile number (E.164): a text with the link goes there too (docs/delivery.md, SMS). */
  @Column({ name: 'recipient_phone', type: 'text', nullable: true })
  recipientPhone: string | null;

  /** Where the latest text stands; null exactly when there is no phone. */
  @Column({ name: 'sms_status', type: 'text', nullable: true })
  smsStatus: SmsStatus | null;

  @Column({ type: 'text', nullable: true })
  message: string | null;

  @Column({ type: 'text', nullable: true })
  utid: string | null;

  @Column({ name: 'allowed_brand_keys', type: 'text', array: true, nullable: true })
  allowedBrandKeys: string[] | null;

  @Column({ type: 'text', nullable: true })
  campaign: string | null;

  @Column({ name: 'external_id', type: 'text', nullable: true })
  externalId: string | null;

  @Column('text')
  source: RewardSource;

  /** Catalog snapshot at send time (FIXED): still shown when the product leaves the catalog. */
  @Column({ name: 'brand_name', type: 'text', nullable: true })
  brandName: string | null;

  @Column({ name: 'brand_image_url', type: 'text', nullable: true })
  brandImageUrl: string | null;

  @Column({ name: 'reward_name', type: 'text', nullable: true })
  rewardName: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** A scheduled send's delivery time (docs/delivery.md, Scheduled sends); null: delivered at once. */
  @Column({ name: 'deliver_at', type: 'timestamptz', nullable: true })
  deliverAt: Date | null;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  @Column({ name: 'opened_at', type: 'timestamptz', nullable: true })
  openedAt: Date | null;

  @Column({ name: 'redeemed_at', type: 'timestamptz', nullable: true })
  redeemedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  /** Who sent it: a dashboard user, an API key or an OAuth app, by id (null for rewards sent before it was kept). */
  @Column({ name: 'created_by_type', type: 'text', nullable: true })
  createdByType: CreatorType | null;

  @Column({ name: 'created_by_id', type: 'text', nullable: true })
  createdById: string | null;

  /**
   * The send's value in the account's primary currency when it went through an API key with a daily
   * limit (docs/controls.md, Key limits): what the key's rolling 24-hour sum adds up. Else null.
   */
  @Column({ name: 'limit_value_cents', type: 'bigint', nullable: true, transformer: bigintCents })
  limitValueCents: number | null;

  /** The approval of a send at or above the account's threshold (docs/controls.md, Approvals); null when it needed none. */
  @Column({ name: 'approval_status', type: 'text', nullable: true })
  approvalStatus: ApprovalStatus | null;

  /** The dashboard user who decided (null for the 30-day rejection), and their e-mail then. */
  @Column({ name: 'approval_decided_by_id', type: 'text', nullable: true })
  approvalDecidedById: string | null;

  @Column({ name: 'approval_decided_by_label', type: 'text', nullable: true })
  approvalDecidedByLabel: string | null;

  @Column({ name: 'approval_decided_at', type: 'timestamptz', nullable: true })
  approvalDecidedAt: Date | null;

  /** False when the send opted out of reminder e-mails (docs/delivery.md, Reminders). */
  @Column({ type: 'boolean', default: true })
  reminders: boolean;

  /** When the reminder sweep next looks at the reward; null: never again. */
  @Column({ name: 'remind_at', type: 'timestamptz', nullable: true })
  remindAt: Date | null;

  /** The `afterDays` reminders the reward has had. */
  @Column({ name: 'reminded_after_days', type: 'smallint', array: true, default: () => "'{}'" })
  remindedAfterDays: number[];

  @Column({ name: 'reminded_before_expiry', type: 'boolean', default: false })
  remindedBeforeExpiry: boolean;
}
