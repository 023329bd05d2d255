import { useQuery } from '@tanstack/react-query';
import { unwrap, v1 } from './http';

/** The current account (name, currency, branding); every money figure is formatted in its currency. */
export function useAccount() {
  return useQuery({
    queryKey: ['account'],
    queryFn: async () => (await unwrap(await v1.GET('/v1/account'))).account,
    staleTime: 5 * 60_000,
  });
}
