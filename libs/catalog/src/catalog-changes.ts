import { CatalogRules, NO_CATALOG_RULES, rulesAllow } from './catalog-rules';

/** One item a catalog sync added, removed or changed, with its brand (which the rules are about). */
export interface ItemChange {
  utid: string;
  brandKey: string;
  kind: 'added' | 'removed' | 'changed';
}

/** The `catalog.updated` payload (docs/webhooks.md, catalog.updated). */
export interface CatalogUpdatedData {
  added: string[];
  removed: string[];
  changed: string[];
}

/** An account with its stored rules; none stored means the whole catalog. */
export interface AccountRules {
  accountId: string;
  rules: CatalogRules | null;
}

/**
 * What one account is told of a sync's changes: only the items of brands its catalog rules allow
 * (docs/catalog-rules.md, the same rule as every other place they apply); null when it may see none
 * of them, and then it gets no event at all. A removed item counts by the brand it had.
 */
export function visibleChanges(rules: CatalogRules | null, changes: ItemChange[]): CatalogUpdatedData | null {
  const data: CatalogUpdatedData = { added: [], removed: [], changed: [] };
  let any = false;
  for (const change of changes) {
    if (!rulesAllow(rules ?? NO_CATALOG_RULES, change.brandKey)) continue;
    data[change.kind].push(change.utid);
    any = true;
  }
  if (!any) return null;
  data.added.sort();
  data.removed.sort();
  data.changed.sort();
  return data;
}

/** The `catalog.updated` events of a sync: one per account that may see any of its changes. */
export function catalogUpdatedEvents(accounts: AccountRules[], changes: ItemChange[]): { accountId: string; data: CatalogUpdatedData }[] {
  const events: { accountId: string; data: CatalogUpdatedData }[] = [];
  if (changes.length === 0) return events;
  // Accounts without rules (most) see every change: one payload shared by all of them.
  let unrestricted: CatalogUpdatedData | null | undefined;
  for (const account of accounts) {
    let data: CatalogUpdatedData | null;
    if (account.rules === null) {
      if (unrestricted === undefined) unrestricted = visibleChanges(null, changes);
      data = unrestricted;
    } else {
      data = visibleChanges(account.rules, changes);
    }
    if (data) events.push({ accountId: account.accountId, data });
  }
  return events;
}
