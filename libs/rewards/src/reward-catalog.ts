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

/**
 * A send checked against the catalog; `item` for a FIXED reward. `currency` is the reward's: a
 * FIXED reward's item's, a CHOICE reward's own (or the primary one); `revision` is the catalog
 * revision it was checked against.
 */
export interface CheckedReward {
  dto: CreateRewardDto;
  item: CheckedItem | null;
  currency: string;
  revision: number;
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
   * The reward's currency (docs/currencies.md, Rewards in another currency): a FIXED reward is in
   * its item's currency, whichever catalog currency that is (a `currency` in the request must be
   * that one); a CHOICE reward in its `currency`, else `primary`. The caller has checked that a
   * CHOICE `currency` is one the account may hold.
   */
  async check(accountId: string, dto: CreateRewardDto, primary: string, manager: EntityManager = this.dataSource.manager): Promise<CheckedReward> {
    if (dto.type === 'FIXED') {
      const located = await this.locate(dto.utid!, dto.currency ?? primary, manager);
      const { item, brand } = located;
      if (dto.currency !== undefined && dto.currency !== located.currency) {
        throw new ValidationError(
          `Item ${item.utid} is in ${located.currency}; a FIXED reward is in its item's currency, so currency must be ${located.currency} or left out.`,
        );
      }
      this.refuseUnlessRulesAllow(await this.rules.of(accountId, located.catalog.revision), brand, 'sender');
      this.refuseUnlessValueFits(item, dto.valueCents, located.currency, 'sender');
      return { dto, item: snapshotOf(item, brand), currency: located.currency, revision: located.catalog.revision };
    }

    const currency = dto.currency ?? primary;
    const catalog = await this.current(currency);
    const rules = await this.rules.of(accountId, catalog.revision);
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
    const cheapest = brandKeys.reduce((min, key) => Math.min(min, catalog.minCentsByBrand.get(key)!), Infinity);
    if (dto.valueCents < cheapest) {
      throw new ValidationError(
        `No card the recipient could pick costs ${formatMoney(dto.valueCents, currency)} or less; the cheapest is ${formatMoney(cheapest, currency)}.`,
      );
    }
    return { dto, item: null, currency, revision: catalog.revision };
  }

  /**
   * Forgets the cached catalogs a send was checked against, after its statement found the catalog
   * revision had moved (the send checks again against the new one).
   */
  forgetAll(): void {
    this.cache.clear();
  }

  /**
   * The active item `utid` with its brand and currency: looked up first in `preferred`'s catalog (the
   * common case costs no more than before rewards in any currency), then in every other currency the
   * catalog offers, each catalog from memory at the current revision.
   */
  private async locate(
    utid: string,
    preferred: string,
    manager: EntityManager,
  ): Promise<{ item: CatalogItem; brand: CatalogBrand; currency: string; catalog: CurrencyCatalog }> {
    const first = await this.current(preferred);
    const found = first.items.get(utid);
    if (found) return { ...found, currency: preferred, catalog: first };
    for (const currency of await this.catalog.currencies()) {
      if (currency === preferred) continue;
      const catalog = await this.current(currency);
      const elsewhere = catalog.items.get(utid);
      if (elsewhere) return { ...elsewhere, currency, catalog };
    }
    // Not in any cached catalog: an unknown item, or one a sync has just added (read it to be sure).
    const currency = await this.catalog.activeItemCurrency(utid, manager);
    const catalog = currency ? await this.load(currency) : null;
    const late = catalog?.items.get(utid);
    if (currency && catalog && late) return { ...late, currency, catalog };
    throw new ValidationError(`Item ${utid} is not in the catalog or is no longer orderable.`);
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
    const found = catalog.items.get(input.utid);
    if (!found) throw new ValidationError(`Item ${input.utid} is not available in ${reward.currency}.`);
    const { item, brand } = found;
    if (reward.allowedBrandKeys && !reward.allowedBrandKeys.includes(brand.brandKey)) {
      throw new ValidationError(`${brand.name} is not one of the brands this reward can be spent on.`);
    }
    this.refuseUnlessRulesAllow(await this.rules.read(manager, reward.accountId), brand, 'recipient');
    this.refuseUnlessValueFits(item, input.amountCents, reward.currency, 'recipient');
    return snapshotOf(item, brand);
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
