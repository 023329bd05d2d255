import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Clock, newId, randomToken } from '@app/core';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEventEntity } from './entities/reward-event.entity';
import { CreatorType, RewardEntity, RewardSource } from './entities/reward.entity';
import type { RewardView } from './dto/reward.dto';
import type { CheckedReward } from './reward-catalog';

/** A reward's one redemption link (docs/redemption.md): the create response, every e-mail and the detail read build it here. */
export function redemptionUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/r/${token}`;
}

export interface WrittenReward {
  view: RewardView;
  redemptionUrl: string;
  /** The cards to order and the e-mail to send after commit: none while the send waits for approval. */
  cardIds: string[];
  mailJobId: string | null;
  /** The text message's job, when the recipient has a phone (docs/delivery.md, SMS); null otherwise or while waiting for approval or for its delivery time. */
  smsJobId: string | null;
}

/**
 * How a send funded from another wallet converts (docs/currencies.md): from `fundingCurrency` at
 * `rate` (its exact decimal text), taking `fundedCents` = ceil(value / rate) from that wallet.
 */
export interface RewardFunding {
  fundingCurrency: string;
  rate: string;
  fundedCents: number;
}

/**
 * A checked send with how it is funded: `fx` when converted from another wallet, else null.
 * `needsApproval`: at or above the account's approval threshold (docs/controls.md, Approvals).
 * `limitValueCents`: its primary-currency value when the sending key has a daily limit.
 */
export type PlannedReward = CheckedReward & { fx: RewardFunding | null; needsApproval?: boolean; limitValueCents?: number | null };

/** Who sends: a dashboard user, an API key or an OAuth app. */
export interface RewardCreator {
  type: CreatorType;
  id: string;
}

/** New rewards built in memory, ready to be written: what the response shows is known before the write. */
export interface PreparedRewards {
  accountId: string;
  rewards: (WrittenReward & { token: string })[];
}

/** What a caller may hand on once the prepared rewards are written (the link token stays here). */
export function writtenRewards(prepared: PreparedRewards): WrittenReward[] {
  return prepared.rewards.map(({ view, redemptionUrl, cardIds, mailJobId, smsJobId }) => ({ view, redemptionUrl, cardIds, mailJobId, smsJobId }));
}

/**
 * Builds new rewards in memory with everything that goes with them: ids, the FIXED reward's card,
 * the link token, the e-mail job and the first timeline events. Writes nothing; RewardRepository
 * writes them (see docs/rewards.md for the states a reward starts in).
 */
@Injectable()
export class RewardDrafts {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** `reminds`: the account has reminder settings (SendRules.reminds); without them no reward asks the reminder sweep to look. */
  prepare(input: { accountId: string; source: RewardSource; planned: PlannedReward[]; createdBy?: RewardCreator | null; reminds: boolean }): PreparedRewards {
    // The service's clock (docs/testing.md, Time): reminders count from sentAt, the 30-day approval cutoff and a
    // key's daily limit from createdAt.
    const now = this.clock.now();
    const rewards = input.planned.map(({ dto, item, currency, fx, needsApproval, limitValueCents }) => {
      const fixed = dto.type === 'FIXED';
      // A send waiting for approval stays CREATED with its value held: no e-mail, no card ordered.
      const pending = needsApproval === true;
      // So does a scheduled one until its delivery time (docs/delivery.md, Scheduled sends).
      const deliverAt = dto.deliverAt ? new Date(dto.deliverAt) : null;
      const waiting = pending || deliverAt !== null;
      const reward = Object.assign(new RewardEntity(), {
        id: newId('rw'),
        accountId: input.accountId,
        type: dto.type,
        // Committed as SENT: the reward is CREATED and its e-mail queued in this transaction.
        status: waiting ? 'CREATED' : 'SENT',
        faceValueCents: dto.valueCents,
        // A FIXED reward's value moves into its PENDING card at once.
        remainingValueCents: fixed ? 0 : dto.valueCents,
        currency,
        fxFundingCurrency: fx?.fundingCurrency ?? null,
        fxRate: fx?.rate ?? null,
        fxFundedCents: fx?.fundedCents ?? null,
        recipientEmail: dto.recipient.email,
        recipientFirstName: dto.recipient.firstName,
        recipientLastName: dto.recipient.lastName ?? null,
        recipientLanguage: dto.recipient.language ?? null,
        emailStatus: deliverAt ? 'SCHEDULED' : 'QUEUED',
        recipientPhone: dto.recipient.phone ?? null,
        // QUEUED until the text goes out, at delivery time for a scheduled send (docs/delivery.md, SMS).
        smsStatus: dto.recipient.phone ? 'QUEUED' : null,
        message: dto.message ?? null,
        utid: fixed ? dto.utid! : null,
        allowedBrandKeys: !fixed && dto.allowedBrandKeys ? [...new Set(dto.allowedBrandKeys)] : null,
        campaign: dto.campaign ?? null,
        externalId: dto.externalId ?? null,
        source: input.source,
        brandName: item?.brandName ?? null,
        brandImageUrl: item?.brandImageUrl ?? null,
        rewardName: item?.rewardName ?? null,
        expiresAt: dto.expiresAt ? new Date(dto.expiresAt) : null,
        deliverAt,
        sentAt: waiting ? null : now,
        openedAt: null,
        redeemedAt: null,
        createdAt: now,
        createdByType: input.createdBy?.type ?? null,
        createdById: input.createdBy?.id ?? null,
        limitValueCents: limitValueCents ?? null,
        approvalStatus: pending ? 'PENDING' : null,
        approvalDecidedById: null,
        approvalDecidedByLabel: null,
        approvalDecidedAt: null,
        // The reminder sweep looks at it once (docs/delivery.md, Reminders) when the account has reminder
        // settings, unless the send opted out. Without settings it is left alone: a later change of them asks
        // the sweep to look at every open reward, and one racing that change is caught up by the sweep.
        reminders: dto.reminders !== false,
        remindAt: dto.reminders === false || !input.reminds ? null : now,
        remindedAfterDays: [],
        remindedBeforeExpiry: false,
      } satisfies Omit<RewardEntity, 'seq'>);
      const cards = item ? [pendingCard(reward, item, dto.valueCents, now, waiting)] : [];
      const types = pending ? (['reward.created', 'reward.approval_required'] as const) : waiting ? (['reward.created'] as const) : (['reward.created', 'reward.sent'] as const);
      const events = types.map((type) =>
        Object.assign(new RewardEventEntity(), {
          id: newId('evt'),
          rewardId: reward.id,
          type,
          metadata: type === 'reward.sent' ? { channel: 'email' } : {},
          createdAt: now,
        }),
      );
      const token = randomToken(32);
      return {
        view: { reward, cards, events },
        token,
        redemptionUrl: redemptionUrl(this.config.publicBaseUrl, token),
        cardIds: waiting ? [] : cards.map((card) => card.id),
        mailJobId: waiting ? null : newId('mail'),
        smsJobId: waiting || !dto.recipient.phone ? null : newId('mail'),
      };
    });
    return { accountId: input.accountId, rewards };
  }
}

/** A new PENDING card of `reward` created at `now` (the service's clock), with the catalog's names as they are now (the snapshot). */
export function pendingCard(
  reward: Pick<RewardEntity, 'id' | 'accountId' | 'currency'>,
  item: NonNullable<CheckedReward['item']>,
  amountCents: number,
  now: Date,
  heldForApproval = false,
): RewardCardEntity {
  return Object.assign(new RewardCardEntity(), {
    id: newId('card'),
    rewardId: reward.id,
    accountId: reward.accountId,
    utid: item.utid,
    rewardName: item.rewardName,
    brandKey: item.brandKey,
    brandName: item.brandName,
    brandImageUrl: item.brandImageUrl,
    amountCents,
    currency: reward.currency,
    status: 'PENDING',
    redemptionInstructions: null,
    sealedCredentials: null,
    credentials: null,
    failureReason: null,
    supplierRequestedAt: null,
    issuingSince: null,
    issueAttempts: 0,
    issuedAt: null,
    heldForApproval,
    createdAt: now,
  } satisfies Omit<RewardCardEntity, 'seq'>);
}
