import { useQuery } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { unwrap, v1 } from './http';
import { queryKeys } from './query-keys';

export type FxRate = components['schemas']['FxRateDto'];

/**
 * The exchange rates between the supported currencies, as a merchant gets them (markup included).
 * They change with the rate source, not with the account's money, so no money-moved change makes
 * them stale; they are read again after a minute.
 */
export function useFxRates() {
  return useQuery({ queryKey: queryKeys.fxRates(), queryFn: async () => (await unwrap(await v1.GET('/v1/fx/rates'))).rates, staleTime: 60_000 });
}

/** The rate from `from` to `to` among `rates`, if the source gives one. */
export function rateOf(rates: FxRate[] | undefined, from: string, to: string): FxRate | undefined {
  return rates?.find((rate) => rate.from === from && rate.to === to);
}
