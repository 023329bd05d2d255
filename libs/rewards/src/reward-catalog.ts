import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CatalogBrand, CatalogItem, CatalogRules, CatalogRulesService, CatalogService, rulesAllow } from '@app/catalog';
import { centsOf, formatMoney, ValidationError } from '@app/core';
import type { CreateRewardDto } from './dto/create-reward.dto';

interface CurrencyCatalog {
  revision: number;
  items: Map<string, { item: CatalogItem; brand: CatalogBrand }>;
  /** Active brands with at least one item in the currency, with their cheapest usable value in cents. */
  minCentsByBrand: Map<string, number>;
}

/** The catalog facts of an item a reward or a pick was checked against: the snapshot stored on the reward and its card. */
export interface CheckedItem {
  utid: string;
  rewardName: string;
  brandKey: string;
  brandName: string;
  brandImageUrl: string | null;
}

/** A send checked against the catalog; `item` for a FIXED reward. */
export interface CheckedReward {
  dto: CreateRewardDto;
  item: CheckedItem | null;
}

/**
 * Who reads a refusal: the sender's API client (the merchant's developer, in the API's terms:
 * `valueCents`, cents) or the recipient on the redemption page (plain words, amounts as money). The
 * rule is one; only its wording differs.
 */
type Reader = 'sender' | 'recipient';

/** The values an item can be bought at: exactly its face value, or any amount in its range. */
export type ValueRule = { kind: 'face'; cents: number } | { kind: 'range'; minCents: number; maxCents: number };

export function valueRuleOf(item: Pick<CatalogItem, 'valueType' | 'faceValue' | 'minValue' | 'maxValue'>): ValueRule {
  return item.valueType === 'FIXED_VALUE'
    ? { kind: 'face', cents: centsOf(item.faceValue) }
    : { kind: 'range', minCents: centsOf(item.minValue), maxCents: centsOf(item.maxValue) };
}

function allowsValue(rule: ValueRule, amountCents: number): boolean {
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
      const { item, brand } = await this.itemOf(catalog, dto.utid!, currency, 'sender', manager);
      this.refuseUnlessRulesAllow(rules, brand, 'sender');
      this.refuseUnlessValueFits(item, dto.valueCents, currency, 'sender');
      return { dto, item: snapshotOf(item, brand) };
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

  /**
   * Throws ValidationError (422) when the recipient of `reward` cannot pick `utid` at `amountCents`:
   * the item is not in the reward's currency, its brand is not on the reward's list or no longer
   * allowed by the account's rules (as they are now, read in the pick's transaction: docs/catalog-rules.md),
   * or the amount breaks the item's value rule. The reward's own state (status, value left) is the
   * lifecycle's to check.
   */
  async checkPick(
    reward: { accountId: string; currency: string; allowedBrandKeys: string[] | null },
    input: { utid: string; amountCents: number },
    manager: EntityManager,
  ): Promise<CheckedItem> {
    const catalog = await this.load(reward.currency, manager);
    const { item, brand } = await this.itemOf(catalog, input.utid, reward.currency, 'recipient', manager);
    if (reward.allowedBrandKeys && !reward.allowedBrandKeys.includes(brand.brandKey)) {
      throw new ValidationError(`${brand.name} is not one of the brands this reward can be spent on.`);
    }
    this.refuseUnlessRulesAllow(await this.rules.read(manager, reward.accountId), brand, 'recipient');
    this.refuseUnlessValueFits(item, input.amountCents, reward.currency, 'recipient');
    return snapshotOf(item, brand);
  }

  /** The active item `utid` in `currency`, with its brand. */
  private async itemOf(
    catalog: CurrencyCatalog,
    utid: string,
    currency: string,
    reader: Reader,
    manager: EntityManager,
  ): Promise<{ item: CatalogItem; brand: CatalogBrand }> {
    const found = catalog.items.get(utid);
    if (found) return found;
    if (reader === 'recipient') throw new ValidationError(`Item ${utid} is not available in ${currency}.`);
    const elsewhere = await this.catalog.activeItemCurrency(utid, manager);
    throw new ValidationError(
      elsewhere ? `Item ${utid} is in ${elsewhere}; this wallet pays in ${currency}.` : `Item ${utid} is not in the catalog or is no longer orderable.`,
    );
  }

  /** The account's catalog rules allow the brand (docs/catalog-rules.md). */
  private refuseUnlessRulesAllow(rules: CatalogRules, brand: CatalogBrand, reader: Reader): void {
    if (rulesAllow(rules, brand.brandKey)) return;
    throw new ValidationError(
      reader === 'sender'
        ? `The account's catalog rules do not allow ${brand.name} (${brand.brandKey}).`
        : `${brand.name} is no longer offered by the sender.`,
    );
  }

  /** The value rule (docs/catalog.md, Value rule): exactly the face value, or within the item's range. */
  private refuseUnlessValueFits(item: CatalogItem, cents: number, currency: string, reader: Reader): void {
    const rule = valueRuleOf(item);
    if (allowsValue(rule, cents)) return;
    const money = (amount: number) => formatMoney(amount, currency);
    if (reader === 'sender') {
      throw new ValidationError(
        rule.kind === 'face'
          ? `Item ${item.utid} has a face value of ${money(rule.cents)}; valueCents must be ${rule.cents}.`
          : `Item ${item.utid} takes ${rule.minCents} to ${rule.maxCents} cents; ${cents} is outside that range.`,
      );
    }
    throw new ValidationError(
      rule.kind === 'face'
        ? `${item.rewardName} has a face value of ${money(rule.cents)}.`
        : `${item.rewardName} takes ${money(rule.minCents)} to ${money(rule.maxCents)}.`,
    );
  }
}

function snapshotOf(item: CatalogItem, brand: CatalogBrand): CheckedItem {
  return { utid: item.utid, rewardName: item.rewardName, brandKey: brand.brandKey, brandName: brand.name, brandImageUrl: brand.imageUrl };
}
