import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { rewardStatuses } from 'virtual:contract-enums';
import type { BulkReward } from '../format/bulk-rows';
import { unwrap, v1 } from './http';
import { useMoneyMoved } from './money-moved';
import { queryKeys } from './query-keys';

export type Reward = components['schemas']['RewardDto'];
export type CreateReward = components['schemas']['CreateRewardDto'];
export type RewardStatus = (typeof rewardStatuses)[number];
/** The statuses the list filters by, as openapi.yaml lists them. */
export const REWARD_STATUSES = rewardStatuses;

export type RewardLedger = components['schemas']['RewardLedgerDto'];

/** A rewards list page's filters; each is left out when not set. `from` / `to` are UTC days, both included. */
export interface RewardFilters {
  page: number;
  pageSize: number;
  status?: RewardStatus;
  externalId?: string;
  type?: 'FIXED' | 'CHOICE';
  campaign?: string;
  currency?: string;
  from?: string;
  to?: string;
  /** A case-insensitive prefix of the recipient's e-mail, first or last name. */
  recipient?: string;
  sort?: RewardSort;
}

/** The orders the list takes (docs/pagination.md, Sorting), as the Rewards page names them. */
export const REWARD_SORTS = [
  { value: '-createdAt', label: 'Newest first' },
  { value: 'createdAt', label: 'Oldest first' },
  { value: '-faceValueCents', label: 'Highest value first' },
  { value: 'faceValueCents', label: 'Lowest value first' },
] as const;
export type RewardSort = (typeof REWARD_SORTS)[number]['value'];

/** A range of UTC days (`YYYY-MM-DD`, both included) as the API's half-open `created_gte` / `created_lt`. */
export function createdRange(from?: string, to?: string): { created_gte?: string; created_lt?: string } {
  const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
  return { created_gte: from ? `${from}T00:00:00.000Z` : undefined, created_lt: to ? dayAfter(to) : undefined };
}

async function rewardsPage({ page, pageSize, status, externalId, type, campaign, currency, from, to, recipient, sort }: RewardFilters) {
  const query = { page, page_size: pageSize, status, external_id: externalId, type, campaign, currency, recipient, sort, ...createdRange(from, to) };
  return unwrap(await v1.GET('/v1/rewards', { params: { query } }));
}

/** A reward's money trail: its and its cards' wallet transactions, oldest first, with the totals. */
export function useRewardLedger(id: string) {
  return useQuery({
    queryKey: queryKeys.rewards.ledger(id),
    queryFn: async () => unwrap(await v1.GET('/v1/rewards/{id}/ledger', { params: { path: { id } } })),
  });
}

/** One page of rewards; the previous page stays on screen while the next loads. */
export function useRewards(filters: RewardFilters, options: { keepPrevious?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.rewards.list(filters),
    queryFn: () => rewardsPage(filters),
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
  });
}

/** One page of an export (100 rows), with the list's filters. */
export async function fetchRewardsForExport(page: number, filters: Omit<RewardFilters, 'page' | 'pageSize'>) {
  const answer = await rewardsPage({ ...filters, page, pageSize: 100 });
  return { items: answer.rewards, total: answer.total };
}

export function useReward(id: string) {
  return useQuery({
    queryKey: queryKeys.rewards.detail(id),
    queryFn: async () => unwrap(await v1.GET('/v1/rewards/{id}', { params: { path: { id } } })),
  });
}

/**
 * The reward's one redemption link (the create response's, the one every e-mail carries): the API
 * gives it back only with rewards:write, so it is read only when `enabled`.
 */
export function useRewardLink(id: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.rewardLink(id),
    enabled,
    queryFn: async () => {
      const full = await unwrap(await v1.GET('/v1/rewards/{id}', { params: { path: { id }, query: { include_credentials: true } } }));
      return full.redemptionUrl ?? null;
    },
  });
}

/** Sends one reward under `idempotencyKey` (one per form submission: a double click sends once). */
export function useSendReward(idempotencyKey: string, onSent: () => void) {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async (body: CreateReward) => {
      const answer = await unwrap(await v1.POST('/v1/rewards', { body, params: { header: { 'Idempotency-Key': idempotencyKey } } }));
      // Without dry_run the answer is always the created (or replayed) reward, with its link.
      if (!('redemptionUrl' in answer)) throw new Error('The service answered a dry run to a real send.');
      return answer;
    },
    onSuccess: () => {
      onSent();
      void moneyMoved();
    },
  });
}

/**
 * One chunk of a bulk send (up to 500 rewards). A dry run checks every row, funds included, and
 * moves nothing; a real one carries `idempotencyKey`, so sending again after a lost answer replays.
 * The caller announces `moneyMoved` once the whole file is sent.
 */
export async function sendBulkChunk(rewards: BulkReward[], dryRun: boolean, idempotencyKey: string) {
  return unwrap(
    await v1.POST('/v1/rewards/bulk', {
      body: { rewards },
      params: { query: { dry_run: dryRun }, header: dryRun ? {} : { 'Idempotency-Key': idempotencyKey } },
    }),
  );
}

export function useCancelReward(id: string) {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async () => unwrap(await v1.POST('/v1/rewards/{id}/cancel', { params: { path: { id } } })),
    onSuccess: moneyMoved,
  });
}

/**
 * Cancels or resends each of `ids` in turn (the Rewards page's bulk actions): one request per
 * reward, as a single one would be; the outcome says which failed and why.
 */
export function useBulkRewardAction() {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async ({ action, ids }: { action: 'cancel' | 'resend'; ids: string[] }) => {
      const failed: { id: string; message: string }[] = [];
      for (const id of ids) {
        try {
          await unwrap(
            action === 'cancel'
              ? await v1.POST('/v1/rewards/{id}/cancel', { params: { path: { id } } })
              : await v1.POST('/v1/rewards/{id}/resend', { params: { path: { id } } }),
          );
        } catch (error) {
          failed.push({ id, message: error instanceof Error ? error.message : 'The request failed.' });
        }
      }
      return { action, done: ids.length - failed.length, failed };
    },
    onSettled: moneyMoved,
  });
}

export function useResendReward(id: string) {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async () => unwrap(await v1.POST('/v1/rewards/{id}/resend', { params: { path: { id } } })),
    onSuccess: moneyMoved,
  });
}

/**
 * Corrects the recipient's address of a reward not yet opened with value left, and e-mails it again
 * with the same link (docs/delivery.md, Correcting the address).
 */
export function useCorrectRecipient(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (email: string) =>
      unwrap(await v1.PATCH('/v1/rewards/{id}', { params: { path: { id } }, body: { recipient: { email } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.rewards.all() }),
  });
}

/** How the dashboard names a reward's `emailStatus` (docs/delivery.md). */
export const EMAIL_STATUS_LABELS: Record<Reward['emailStatus'], string> = {
  SCHEDULED: 'Scheduled',
  QUEUED: 'Queued',
  DELIVERED: 'Delivered',
  FAILED: 'Failed',
};

/** The open statuses, in which a reward can still be canceled (docs/rewards.md). */
const CANCELLABLE: readonly RewardStatus[] = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED'];

/** Statuses whose e-mail would lead to nothing usable. A REDEEMED reward's resend is how a recipient gets the codes again. */
const NOTHING_TO_RESEND: readonly RewardStatus[] = ['CANCELED', 'EXPIRED'];

export const canCancel = (reward: Pick<Reward, 'status'>): boolean => CANCELLABLE.includes(reward.status);

/** Not canceled or expired, and not waiting for its delivery time (a scheduled reward has no e-mail yet). */
export const canResend = (reward: Pick<Reward, 'status' | 'deliverAt'>): boolean =>
  !NOTHING_TO_RESEND.includes(reward.status) && !(reward.status === 'CREATED' && reward.deliverAt);

/** How the dashboard names a reward's `smsStatus` (docs/delivery.md, SMS). */
export const SMS_STATUS_LABELS: Record<NonNullable<Reward['smsStatus']>, string> = {
  QUEUED: 'Queued',
  SENT: 'Sent',
  FAILED: 'Failed',
};

/**
 * The reason of the reward's latest delivery failure on `channel` (the server's or the SMS provider's
 * reply), if its latest message on that channel failed.
 */
export function deliveryFailure(reward: Reward, channel: 'email' | 'sms' = 'email'): string | null {
  if ((channel === 'email' ? reward.emailStatus : reward.smsStatus) !== 'FAILED') return null;
  const failed = [...reward.events]
    .reverse()
    .find((event) => event.type === 'reward.delivery_failed' && (event.metadata.channel ?? 'email') === channel);
  const reason = failed?.metadata.reason;
  return typeof reason === 'string' ? reason : null;
}

/** Whether the address may still be corrected: not opened, not cancelled or expired, value left (a FIXED reward's is its card). */
export function addressCorrectable(reward: Reward): boolean {
  if (reward.openedAt !== null || reward.status === 'CANCELED' || reward.status === 'EXPIRED') return false;
  return reward.type === 'FIXED' || reward.remainingValueCents > 0;
}

/** The recipient languages (docs/recipient-language.md), named in English for the merchant, in the contract's order. */
export const LANGUAGE_NAMES: Record<NonNullable<Reward['recipientLanguage']>, string> = {
  en: 'English',
  es: 'Spanish',
  fr: 'French',
  de: 'German',
  it: 'Italian',
  pt: 'Portuguese',
  nl: 'Dutch',
};
