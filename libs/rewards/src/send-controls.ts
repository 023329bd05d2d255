import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { KeyLimits, Principal } from '@app/auth';
import { Clock, formatMoney, queryRows, ValidationError } from '@app/core';
import { FxRates, RATE_SCALE } from '@app/fx';
import type { PlannedReward, RewardCreator } from './reward-drafts';

/** The controls that apply to one request's sends (docs/controls.md): the key's limits and the approval threshold. */
export interface SendRules {
  primary: string;
  limits: KeyLimits | null;
  thresholdCents: number | null;
  /**
   * Whether the account has reminder settings: only then does a new reward ask the reminder sweep to look
   * at it (docs/delivery.md, Reminders). Read with the threshold, in the same statement.
   */
  reminds: boolean;
}

/** Mid rates one request has read, per pair. */
export type MidRateCache = Map<string, Promise<bigint>>;

/**
 * Key limits and approvals at send time (docs/controls.md). A send's primary-currency value is
 * worked out only when a rule needs it (a key with limits, an account with a threshold), so a send
 * without controls costs one read of the account's threshold and nothing more.
 *
 * The daily limit is enforced as the wallet is: the key's row is locked in the send's own
 * transaction before its last 24 hours are summed, so concurrent sends through one key queue up on
 * it and can never take it over the limit together.
 */
@Injectable()
export class SendControls {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rates: FxRates,
    private readonly clock: Clock,
  ) {}

  async rulesFor(principal: Principal, primary: string): Promise<SendRules> {
    const [row] = await queryRows<{ threshold: string | null; reminds: boolean }>(
      this.dataSource.manager,
      `SELECT approval_threshold_cents AS threshold, cardinality(reminder_after_days) > 0 OR reminder_before_expiry_days IS NOT NULL AS reminds
         FROM accounts WHERE id = $1`,
      [principal.accountId],
    );
    return {
      primary,
      limits: principal.credentialKind === 'api_key' ? (principal.keyLimits ?? null) : null,
      thresholdCents: row?.threshold == null ? null : Number(row.threshold),
      reminds: row?.reminds ?? false,
    };
  }

  /**
   * Marks a planned send as needing approval and records its value for the daily limit; refuses one
   * over the key's `maxRewardCents` (422). Changes nothing when no rule applies.
   */
  async apply(planned: PlannedReward, rules: SendRules, cache: MidRateCache): Promise<PlannedReward> {
    if (!rules.limits && rules.thresholdCents === null) return planned;
    const value = await this.primaryValue(planned.dto.valueCents, planned.currency, rules.primary, cache);
    const max = rules.limits?.maxRewardCents ?? null;
    if (max !== null && value > max) {
      throw new ValidationError(
        `This send is worth ${formatMoney(value, rules.primary)}, over this API key's maxRewardCents limit of ${formatMoney(max, rules.primary)}.`,
      );
    }
    return {
      ...planned,
      needsApproval: rules.thresholdCents !== null && value >= rules.thresholdCents,
      limitValueCents: rules.limits?.dailyLimitCents != null ? value : null,
    };
  }

  /**
   * Locks the key's row until the caller's transaction ends and answers what its sends of the last
   * 24 hours are worth (docs/controls.md, Key limits).
   */
  async lockKeySpend(manager: EntityManager, keyId: string): Promise<number> {
    await manager.query(`SELECT 1 FROM api_keys WHERE id = $1 FOR NO KEY UPDATE`, [keyId]);
    return this.spentToday(manager, keyId);
  }

  /**
   * What the key's sends of the last 24 hours are worth, without a lock (a dry run's check). The 24 hours
   * end at the service's clock, the one a reward's `createdAt` is taken from (docs/testing.md, Time).
   */
  async spentToday(manager: EntityManager, keyId: string): Promise<number> {
    const [row] = await queryRows<{ spent: string }>(
      manager,
      `SELECT COALESCE(sum(limit_value_cents), 0) AS spent FROM rewards
        WHERE created_by_id = $1 AND limit_value_cents IS NOT NULL AND created_at > $2::timestamptz - interval '24 hours'`,
      [keyId, this.clock.now()],
    );
    return Number(row.spent);
  }

  /**
   * The sender's label, as `createdBy.label` shows it (docs/rewards.md, Who sent it): the user's
   * e-mail, the key's name, the connected app's name; read once per request.
   */
  async creatorLabel(principal: Principal): Promise<string | null> {
    if (principal.credentialKind === 'session') return principal.user?.email ?? null;
    const creator = creatorOf(principal);
    const [row] = await queryRows<{ label: string | null }>(
      this.dataSource.manager,
      creator.type === 'api_key' ? `SELECT NULLIF(name, '') AS label FROM api_keys WHERE id = $1` : `SELECT name AS label FROM oauth_clients WHERE id = $1`,
      [creator.id],
    );
    return row?.label ?? null;
  }

  /** 422 when `valueCents` more would take the key over its daily limit, `spent` being what it sent already. */
  checkDaily(rules: SendRules, spent: number, valueCents: number): void {
    const limit = rules.limits?.dailyLimitCents ?? null;
    if (limit === null || spent + valueCents <= limit) return;
    throw dailyLimitError(rules.primary, limit, spent, valueCents);
  }

  /** The value in the primary currency at the current mid rate (rounded half up). */
  private async primaryValue(valueCents: number, currency: string, primary: string, cache: MidRateCache): Promise<number> {
    if (currency === primary) return valueCents;
    const pair = `${currency}>${primary}`;
    let mid = cache.get(pair);
    if (!mid) {
      mid = this.rates.current(currency, primary).then((rate) => rate.midRate);
      cache.set(pair, mid);
    }
    const rate = await mid;
    return Number((2n * BigInt(valueCents) * rate + RATE_SCALE) / (2n * RATE_SCALE));
  }
}

export function dailyLimitError(primary: string, limit: number, spent: number, valueCents: number): ValidationError {
  return new ValidationError(
    `This send (${formatMoney(valueCents, primary)}) would take this API key's sends of the last 24 hours to ` +
      `${formatMoney(spent + valueCents, primary)}, over its dailyLimitCents limit of ${formatMoney(limit, primary)}.`,
  );
}

/** Who a credential sends as (docs/controls.md): the dashboard user, the API key or the OAuth app. */
export function creatorOf(principal: Principal): RewardCreator {
  if (principal.credentialKind === 'session' && principal.user) return { type: 'user', id: principal.user.id };
  if (principal.credentialKind === 'oauth_token') return { type: 'oauth_app', id: principal.oauthClientId ?? principal.credentialId };
  return { type: 'api_key', id: principal.credentialId };
}
