import { bigintCents } from '@app/core';
import { rewardFxOf } from '../dto/reward.dto';
import type { RewardCardEntity } from '../entities/reward-card.entity';
import type { RewardEntity } from '../entities/reward.entity';

/** The webhook `data` of a reward event (what a merchant is told; see docs/webhooks.md). */
export function rewardEventData(
  reward: Pick<
    RewardEntity,
    'id' | 'status' | 'faceValueCents' | 'remainingValueCents' | 'currency' | 'fxFundingCurrency' | 'fxRate' | 'fxFundedCents' | 'externalId'
  >,
  status = reward.status,
): Record<string, unknown> {
  return {
    id: reward.id,
    status,
    valueCents: reward.faceValueCents,
    remainingValueCents: reward.remainingValueCents,
    currency: reward.currency,
    fx: rewardFxOf(reward),
    externalId: reward.externalId,
  };
}

/** The columns `rewardEventDataOfRow` needs, as a raw query returns them (bigints as text), for batch work that skips the entity. */
export interface RewardEventRow {
  id: string;
  account_id: string;
  status: RewardEntity['status'];
  face_value_cents: string;
  remaining_value_cents: string;
  currency: string;
  fx_funding_currency: string | null;
  fx_rate: string | null;
  fx_funded_cents: string | null;
  external_id: string | null;
}

/** The select list of a `RewardEventRow`, for a query on `rewards` aliased `r`. */
export const REWARD_EVENT_COLUMNS =
  'r.id, r.account_id, r.status, r.face_value_cents, r.remaining_value_cents, r.currency, r.fx_funding_currency, r.fx_rate, r.fx_funded_cents, r.external_id';

/** `rewardEventData` of a raw row. */
export function rewardEventDataOfRow(row: RewardEventRow, status = row.status): Record<string, unknown> {
  const cents = (value: string) => bigintCents.from(value) as number;
  return rewardEventData(
    {
      id: row.id,
      status: row.status,
      faceValueCents: cents(row.face_value_cents),
      remainingValueCents: cents(row.remaining_value_cents),
      currency: row.currency,
      fxFundingCurrency: row.fx_funding_currency,
      fxRate: row.fx_rate,
      fxFundedCents: row.fx_funded_cents === null ? null : cents(row.fx_funded_cents),
      externalId: row.external_id,
    },
    status,
  );
}

/** The webhook `data` of a card event: the card with the status it reached. */
export function cardEventData(
  rewardId: string,
  card: Pick<RewardCardEntity, 'id' | 'utid' | 'amountCents' | 'currency'>,
  status: string,
): Record<string, unknown> {
  return { rewardId, card: { id: card.id, utid: card.utid, amountCents: card.amountCents, currency: card.currency, status } };
}
