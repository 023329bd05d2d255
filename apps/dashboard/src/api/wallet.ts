import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { unwrap, v1 } from './http';
import { useMoneyMoved } from './money-moved';
import { queryKeys } from './query-keys';

export type WalletTransaction = components['schemas']['WalletTransactionDto'];
export type WalletBalance = components['schemas']['WalletDto'];

/** The wallet's balances (available and reserved). */
export function useWallet() {
  return useQuery({ queryKey: queryKeys.wallet.balance(), queryFn: async () => (await unwrap(await v1.GET('/v1/wallet'))).wallet });
}

/** Every wallet of the account, one per currency, the primary first (docs/currencies.md, Wallets). */
export function useWallets() {
  return useQuery({ queryKey: queryKeys.wallet.list(), queryFn: async () => (await unwrap(await v1.GET('/v1/wallets'))).wallets });
}

async function transactionsPage(page: number, pageSize: number) {
  return unwrap(await v1.GET('/v1/wallet/transactions', { params: { query: { page, page_size: pageSize } } }));
}

/** One page of the wallet's transactions, newest first; the previous page stays on screen while the next loads. */
export function useWalletTransactions(page: number, pageSize: number) {
  return useQuery({
    queryKey: queryKeys.wallet.transactions(page),
    queryFn: () => transactionsPage(page, pageSize),
    placeholderData: keepPreviousData,
  });
}

/** One page of an export (100 rows). */
export async function fetchTransactionsForExport(page: number) {
  const answer = await transactionsPage(page, 100);
  return { items: answer.transactions, total: answer.total };
}

/**
 * Funds the wallet. With Stripe the answer carries a payment page the browser goes to (it comes back
 * to the wallet); with fake payments the top-up settles at once and `onSettledNow` runs.
 */
export function useTopUp(onSettledNow: () => void) {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async (amountCents: number) => unwrap(await v1.POST('/v1/topups', { body: { amountCents } })),
    onSuccess: (answer) => {
      if (answer.checkoutUrl) window.location.assign(answer.checkoutUrl);
      else {
        onSettledNow();
        void moneyMoved();
      }
    },
  });
}
