import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { ApiFailure, unwrap, v1 } from './http';
import { useMoneyMoved } from './money-moved';
import { queryKeys, type WalletTransactionFilters } from './query-keys';
import { createdRange } from './rewards';

export type Wallet = components['schemas']['WalletDto'];
export type WalletTransaction = components['schemas']['WalletTransactionDto'];
export type Statement = components['schemas']['StatementDto'];
type TransactionKind = WalletTransaction['kind'];
export type { WalletTransactionFilters };

/** Every wallet of the account, one per currency it holds: the primary one first (even when empty), then by code. */
export function useWallets() {
  return useQuery({ queryKey: queryKeys.wallet.list(), queryFn: async () => (await unwrap(await v1.GET('/v1/wallets'))).wallets });
}

async function transactionsPage(page: number, pageSize: number, currency: string | undefined, filters: WalletTransactionFilters = {}) {
  const { kind, relatedId, from, to } = filters;
  const query = { page, page_size: pageSize, currency, kind: kind as TransactionKind | undefined, related_id: relatedId, ...createdRange(from, to) };
  return unwrap(await v1.GET('/v1/wallet/transactions', { params: { query } }));
}

/**
 * One page of the transactions, newest first, of one currency's wallet or (`currency` undefined) of
 * every wallet; the previous page stays on screen while the next loads.
 */
export function useWalletTransactions(page: number, pageSize: number, currency: string | undefined, filters: WalletTransactionFilters = {}) {
  return useQuery({
    queryKey: queryKeys.wallet.transactions(page, currency, filters),
    queryFn: () => transactionsPage(page, pageSize, currency, filters),
    placeholderData: keepPreviousData,
  });
}

/** One page of an export (100 rows), with the list's currency filter. */
export async function fetchTransactionsForExport(page: number, currency: string | undefined, filters: WalletTransactionFilters = {}) {
  const answer = await transactionsPage(page, 100, currency, filters);
  return { items: answer.transactions, total: answer.total };
}

/**
 * Funds the wallet of `currency` (opened by its first top-up). With Stripe the answer carries a
 * payment page the browser goes to (it comes back to the wallet); with fake payments the top-up
 * settles at once and `onSettledNow` runs.
 */
export function useTopUp(onSettledNow: () => void) {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async (body: { amountCents: number; currency: string }) => unwrap(await v1.POST('/v1/topups', { body })),
    onSuccess: (answer) => {
      if (answer.checkoutUrl) window.location.assign(answer.checkoutUrl);
      else {
        onSettledNow();
        void moneyMoved();
      }
    },
  });
}

/** One wallet's statement of a UTC month (`YYYY-MM`): opening balances, the month's movements, closing balances. */
export function useStatement(month: string | undefined, currency: string | undefined) {
  return useQuery({
    queryKey: queryKeys.wallet.statement(month ?? '', currency ?? ''),
    enabled: Boolean(month && currency),
    retry: false,
    queryFn: async () => {
      // The operation answers JSON or a PDF; asked for JSON, it is the JSON.
      const answer = await unwrap(await v1.GET('/v1/wallet/statements/{month}', { params: { path: { month: month! }, query: { currency } } }));
      return (answer as Exclude<typeof answer, string>).statement;
    },
  });
}

/**
 * A PDF of the API (a statement with `Accept: application/pdf`, a receipt), fetched with the session's
 * cookie and saved under `filename`. An error answer is JSON and becomes an ApiFailure.
 */
export async function downloadPdf(path: string, filename: string): Promise<void> {
  const response = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/pdf' } });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
    throw new ApiFailure(response.status, body.error ?? 'internal', body.message ?? response.statusText);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Where a settled top-up's PDF receipt is (the session's cookie is enough to fetch it). */
export const receiptUrl = (topupId: string) => `/v1/topups/${encodeURIComponent(topupId)}/receipt`;
