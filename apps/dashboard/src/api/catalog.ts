import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { formatCents } from '../format/money';
import { unwrap, v1 } from './http';
import { queryKeys } from './query-keys';

export type CatalogBrand = components['schemas']['CatalogBrandDto'];
export type CatalogItem = components['schemas']['CatalogItemDto'];

export function useCatalog() {
  return useQuery({
    queryKey: queryKeys.catalog(),
    queryFn: async () => (await unwrap(await v1.GET('/v1/catalog'))).brands,
    staleTime: 5 * 60_000,
  });
}

/** The account's own restriction of the catalog (docs/catalog-rules.md). */
export function useCatalogRules() {
  return useQuery({ queryKey: queryKeys.catalogRules(), queryFn: async () => (await unwrap(await v1.GET('/v1/account/catalog-rules'))).catalogRules });
}

export function useSaveCatalogRules() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { allowedBrandKeys: string[] | null; blockedBrandKeys: string[] }) => unwrap(await v1.PUT('/v1/account/catalog-rules', { body })),
    onSuccess: (answer) => {
      client.setQueryData(queryKeys.catalogRules(), answer.catalogRules);
      // What the account may offer changed: the catalog is read again.
      void client.invalidateQueries({ queryKey: queryKeys.catalog() });
    },
  });
}

/**
 * Whether `valueCents` may be sent as `item`: catalog values are in major units (25 = 25.00), so a
 * fixed item takes exactly faceValue × 100 and a variable one anything in [min × 100, max × 100].
 */
export function itemAccepts(item: CatalogItem, valueCents: number): boolean {
  if (!Number.isInteger(valueCents) || valueCents <= 0) return false;
  if (item.valueType === 'FIXED_VALUE') return item.faceValue !== null && Math.round(item.faceValue * 100) === valueCents;
  return item.minValue !== null && item.maxValue !== null && valueCents >= Math.round(item.minValue * 100) && valueCents <= Math.round(item.maxValue * 100);
}

/** "$25.00" for a fixed item, "$5.00–$500.00" for a variable one, in the item's currency. */
export function itemValueLabel(item: CatalogItem): string {
  const money = (major: number) => formatCents(Math.round(major * 100), item.currencyCode);
  if (item.valueType === 'FIXED_VALUE') return money(item.faceValue ?? 0);
  return `${money(item.minValue ?? 0)}–${money(item.maxValue ?? 0)}`;
}
