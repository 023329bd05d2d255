import { useMutation, useQuery } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { quoteDeadline } from '../format/quote-countdown';
import { unwrap, v1 } from './http';
import { useMoneyMoved } from './money-moved';
import { queryKeys } from './query-keys';

export type FxRate = components['schemas']['FxRateDto'];
export type FxQuote = components['schemas']['FxQuoteDto'];

/** A quote as the page holds it: the API's quote and its deadline on the page's clock. */
export interface HeldQuote {
  quote: FxQuote;
  /** Milliseconds since the epoch, on the page's clock (format/quote-countdown.ts). */
  deadline: number;
}

/** The rates between every pair of currencies the account may hold; read only when `enabled` (the forms that need them). */
export function useFxRates(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.fxRates(),
    enabled,
    queryFn: async () => (await unwrap(await v1.GET('/v1/fx/rates'))).rates,
    staleTime: 60_000,
  });
}

/** Asks for a quote binding for 60 s: what `toAmountCents` of `to` costs in `from`. Nothing moves. */
export function useFxQuote() {
  return useMutation({
    mutationFn: async (body: { from: string; to: string; toAmountCents: number }): Promise<HeldQuote> => {
      const answer = await v1.POST('/v1/fx/quotes', { body });
      const { quote } = await unwrap(answer);
      return { quote, deadline: quoteDeadline(quote.expiresAt, Date.now(), answer.response.headers.get('Date')) };
    },
  });
}

/**
 * Converts at a quote under `idempotencyKey` (one per quote: a double click converts once). Money
 * moved between two wallets, so everything that shows money is read again.
 */
export function useFxConversion(idempotencyKey: string, onConverted: () => void) {
  const moneyMoved = useMoneyMoved();
  return useMutation({
    mutationFn: async (quoteId: string) =>
      unwrap(await v1.POST('/v1/fx/conversions', { body: { quoteId }, params: { header: { 'Idempotency-Key': idempotencyKey } } })),
    onSuccess: () => {
      onConverted();
      void moneyMoved();
    },
  });
}

/** The rate from `from` to `to` among `rates`, if the source gives one. */
export function rateOf(rates: FxRate[] | undefined, from: string, to: string): FxRate | undefined {
  return rates?.find((rate) => rate.from === from && rate.to === to);
}
