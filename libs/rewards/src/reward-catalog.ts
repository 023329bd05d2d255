import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CatalogBrand, CatalogItem, CatalogRulesService, CatalogService, rulesAllow } from '@app/catalog';
import { centsOf, formatMoney, ValidationError } from '@app/core';
import type { CreateRewardDto } from './dto/create-reward.dto';

interface CurrencyCatalog {
  revision: number;
  items: Map<string, { item: CatalogItem; brand: CatalogBrand }>;
  /** Active brands with at least one item in the currency, with their cheapest usable value in cents. */
  minCentsByBrand: Map<string, number>;
}

/** The catalog facts a reward was checked against: the snapshot stored on the reward and its card. */
export interface CheckedReward {
  dto: CreateRewardDto;
  item: { utid: string; rewardName: string; brandKey: string; brandName: string; brandImageUrl: string | null } | null;
}

/** The values an item can be bought at: exactly its face value, or any amount in its range. */
export type ValueRule = { kind: 'face'; cents: number } | { kind: 'range'; minCents: number; maxCents: number };

export function valueRuleOf(item: Pick<CatalogItem, 'valueType' | 'faceValue' | 'minValue' | 'maxValue'>): ValueRule {
  return item.valueType === 'FIXED_VALUE'
    ? { kind: 'face', cents: centsOf(item.faceValue) }
    : { kind: 'range', minCents: centsOf(item.minValue), maxCents: centsOf(item.maxValue) };
}

export function allowsValue(rule: ValueRule, amountCents: number): boolean {
  return rule.kind === 'face' ? amountCents === rule.cents : amountCents >= rule.minCents && amountCents <= rule.maxCents;
}

/** The cheapest amount an item can be bought at. */
function cheapestOf(rule: ValueRule): number {
  return rule.kind === 'face' ? rule.cents : rule.minCents;
}

/**
 * Checks reward requests against the synced catalog (422 when they cannot be fulfilled). The
 * active catalog of a currency is cached per catalog revision: a request costs one primary-key
 * read, and a sync is seen at once.
 */
@Injectable()
export class RewardCatalog {
  private readonly cache = new Map<string, CurrencyCatalog>();

  constructor(
    private readonly catalog: CatalogService,
    private readonly dataSource: DataSource,
    private readonly rules: CatalogRulesService,
  ) {}

  /**
   * Inside a transaction pass its manager: a transaction that waits for a second pooled connection
   * can deadlock the pool when every connection is held by transactions waiting on it.
   */
  async load(currency: string, manager: EntityManager = this.dataSource.manager): Promise<CurrencyCatalog> {
    const revision = await this.catalog.revision(manager);
    const cached = this.cache.get(currency);
    if (cached?.revision === revision) return cached;
    const listings = await this.catalog.listActiveBrands({ currency }, manager);
    const loaded: CurrencyCatalog = { revision, items: new Map(), minCentsByBrand: new Map() };
    for (const { brand, items } of listings) {
      for (const item of items) {
        loaded.items.set(item.utid, { item, brand });
        const min = cheapestOf(valueRuleOf(item));
        loaded.minCentsByBrand.set(brand.brandKey, Math.min(loaded.minCentsByBrand.get(brand.brandKey) ?? Infinity, min));
      }
    }
    this.cache.set(currency, loaded);
    return loaded;
  }

  /**
   * The catalog of the currency at the current revision, without a database read while the
   * revision is known in memory; a single send still verifies in its own write that the revision
   * it checked against is current (`forget` and retry when not).
   */
  async current(currency: string): Promise<CurrencyCatalog> {
    const cached = this.cache.get(currency);
    // The revision comes from memory while the database announces changes: a newly synced item is
    // seen at once, not only after a stale check happened to fail.
    if (cached && cached.revision === (await this.catalog.currentRevision())) return cached;
    return this.load(currency);
  }

  forget(currency: string): void {
    this.cache.delete(currency);
  }

  /**
   * Throws ValidationError (422) when the request cannot be fulfilled from the catalog, or names a
   * brand the account's catalog rules (as of the catalog's revision, from memory) do not allow.
   */
  async check(
    accountId: string,
    dto: CreateRewardDto,
    currency: string,
    catalog: CurrencyCatalog,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<CheckedReward> {
    const rules = await this.rules.of(accountId, catalog.revision);
    if (dto.type === 'FIXED') {
      const found = catalog.items.get(dto.utid!);
      if (!found) {
        const elsewhere = await this.catalog.activeItemCurrency(dto.utid!, manager);
        throw new ValidationError(
          elsewhere
            ? `Item ${dto.utid} is in ${elsewhere}; this wallet pays in ${currency}.`
            : `Item ${dto.utid} is not in the catalog or is no longer orderable.`,
        );
      }
      const { item, brand } = found;
      if (!rulesAllow(rules, brand.brandKey)) throw new ValidationError(`The account's catalog rules do not allow ${brand.name} (${brand.brandKey}).`);
      const rule = valueRuleOf(item);
      if (!allowsValue(rule, dto.valueCents)) {
        throw new ValidationError(
          rule.kind === 'face'
            ? `Item ${item.utid} has a face value of ${formatMoney(rule.cents, currency)}; valueCents must be ${rule.cents}.`
            : `Item ${item.utid} takes ${rule.minCents} to ${rule.maxCents} cents; ${dto.valueCents} is outside that range.`,
        );
      }
      return {
        dto,
        item: { utid: item.utid, rewardName: item.rewardName, brandKey: brand.brandKey, brandName: brand.name, brandImageUrl: brand.imageUrl },
      };
    }

    // Without a list of its own, a CHOICE reward offers what the rules allow (checked again at each pick).
    const brandKeys = dto.allowedBrandKeys
      ? [...new Set(dto.allowedBrandKeys)]
      : [...catalog.minCentsByBrand.keys()].filter((key) => rulesAllow(rules, key));
    const missing = brandKeys.filter((key) => !catalog.minCentsByBrand.has(key));
    if (missing.length > 0) {
      const active = new Set(await this.catalog.activeBrandKeys(missing, manager));
      const unknown = missing.filter((key) => !active.has(key));
      throw new ValidationError(
        unknown.length > 0
          ? `Unknown or inactive brand keys: ${unknown.join(', ')}.`
          : `These brands have no cards in ${currency}: ${missing.join(', ')}.`,
      );
    }
    const refused = brandKeys.filter((key) => !rulesAllow(rules, key));
    if (refused.length > 0) throw new ValidationError(`The account's catalog rules do not allow these brands: ${refused.join(', ')}.`);
    if (brandKeys.length === 0) throw new ValidationError(`The catalog has no cards in ${currency} that the account's catalog rules allow.`);
    const cheapest = Math.min(...brandKeys.map((key) => catalog.minCentsByBrand.get(key)!));
    if (dto.valueCents < cheapest) {
      throw new ValidationError(
        `No card the recipient could pick costs ${formatMoney(dto.valueCents, currency)} or less; the cheapest is ${formatMoney(cheapest, currency)}.`,
      );
    }
    return { dto, item: null };
  }
}
