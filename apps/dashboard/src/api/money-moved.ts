import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { queryKeys } from './query-keys';

/**
 * What shows money or a reward's state: every rewards list and detail, the overview's figures, every
 * wallet's balance and transactions. The one place that decides what a send, a bulk send, a cancel,
 * a resend, a top-up or a conversion makes stale (docs/dashboard.md, The web app).
 */
const MONEY_QUERIES = [queryKeys.rewards.all(), queryKeys.overview(), queryKeys.wallet.all()];

/** Marks stale every query that shows money; those on screen are fetched again at once. */
export async function moneyMoved(client: QueryClient): Promise<void> {
  await Promise.all(MONEY_QUERIES.map((queryKey) => client.invalidateQueries({ queryKey })));
}

/** `moneyMoved` bound to the app's query cache, for a mutation's `onSuccess`. */
export function useMoneyMoved(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => moneyMoved(client), [client]);
}
