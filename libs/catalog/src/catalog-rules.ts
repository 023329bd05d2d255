/**
 * An account's restriction of the catalog (docs/catalog-rules.md): `allowedBrandKeys` null means
 * every brand; a brand named in `blockedBrandKeys` is refused even when also allowed.
 */
export interface CatalogRules {
  allowedBrandKeys: string[] | null;
  blockedBrandKeys: string[];
}

export const NO_CATALOG_RULES: CatalogRules = Object.freeze({ allowedBrandKeys: null, blockedBrandKeys: [] }) as CatalogRules;

export function rulesAllow(rules: CatalogRules, brandKey: string): boolean {
  return (rules.allowedBrandKeys === null || rules.allowedBrandKeys.includes(brandKey)) && !rules.blockedBrandKeys.includes(brandKey);
}

/**
 * A stable text of the rules for cache keys and ETags: empty when they restrict nothing, so
 * accounts without rules share cached catalog bodies.
 */
export function rulesCacheKey(rules: CatalogRules): string {
  if (rules.allowedBrandKeys === null && rules.blockedBrandKeys.length === 0) return '';
  return JSON.stringify({ allowed: rules.allowedBrandKeys && [...rules.allowedBrandKeys].sort(), blocked: [...rules.blockedBrandKeys].sort() });
}
