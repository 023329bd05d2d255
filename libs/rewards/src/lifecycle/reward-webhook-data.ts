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

/** The webhook `data` of a card event: the card with the status it reached. */
export function cardEventData(
  rewardId: string,
  card: Pick<RewardCardEntity, 'id' | 'utid' | 'amountCents' | 'currency'>,
  status: string,
): Record<string, unknown> {
  return { rewardId, card: { id: card.id, utid: card.utid, amountCents: card.amountCents, currency: card.currency, status } };
}
