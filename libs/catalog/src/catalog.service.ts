import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { NotificationHandler, PgNotifications } from '@app/core';
import { CatalogBrandEntity } from './entities/catalog-brand.entity';
import { CatalogItemEntity } from './entities/catalog-item.entity';

export interface CatalogFilters {
  /** Case-insensitive substring of the brand name. */
  search?: string;
  /** ISO 4217 code, any case. */
  currency?: string;
  /** ISO 3166-1 alpha-2 code, any case. */
  country?: string;
  brandKeys?: string[];
}

/** A synced brand and item as other libs read them (the entities stay inside catalog). */
export type CatalogBrand = CatalogBrandEntity;
export type CatalogItem = CatalogItemEntity;

/** A brand with the items that passed the filters. */
export interface CatalogBrandListing {
  brand: CatalogBrandEntity;
  items: CatalogItemEntity[];
}

export interface ActiveCatalogItem {
  item: CatalogItemEntity;
  brand: CatalogBrandEntity;
}

/** Announced by the commit that bumps catalog_state.revision, with the new revision. */
export const CATALOG_CHANGED_CHANNEL = 'catalog_changed';
/** Even while announcements arrive, the revision in memory is read again this often (belt and braces). */
const REVISION_RECHECK_MS = 5_000;

/** A catalog read and the revision it was read at, taken in one snapshot. */
export interface CatalogSnapshot<T> {
  revision: number;
  value: T;
}

/**
 * Reads of our synced copy of the catalog: only active brands and items, never the supplier.
 * Brands are ordered by name, ignoring case and accents (whatever the database collation); a brand's
 * items by currency, value type and value.
 */
@Injectable()
export class CatalogService implements NotificationHandler {
  /** The current revision as announced by the database; null when not known or not trusted. */
  private known: number | null = null;
  private knownAt = 0;
  private generation = 0;
  private subscribed = false;
  /** The currencies offered, as read at a revision (they change only with the catalog). */
  private offered: { revision: number; currencies: string[] } | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(CatalogBrandEntity) private readonly brands: Repository<CatalogBrandEntity>,
    @InjectRepository(CatalogItemEntity) private readonly items: Repository<CatalogItemEntity>,
    private readonly notifications: PgNotifications,
  ) {}

  /** The catalog revision: one primary-key read (inside `manager`'s transaction when given). */
  async revision(manager: EntityManager = this.dataSource.manager): Promise<number> {
    const [row] = await manager.query(`SELECT revision::text AS revision FROM catalog_state WHERE id = 1`);
    return Number(row.revision);
  }

  /**
   * The current revision, from memory while the database's announcements (CATALOG_CHANGED_CHANNEL,
   * sent by the commit that bumps it) are being received, else read. Revisions only grow, so a
   * read racing an announcement keeps the higher one.
   */
  async currentRevision(): Promise<number> {
    if (this.known !== null && Date.now() - this.knownAt < REVISION_RECHECK_MS && this.notifications.live(CATALOG_CHANGED_CHANNEL)) {
      return this.known;
    }
    if (!this.subscribed) {
      this.subscribed = true;
      this.notifications.subscribe(CATALOG_CHANGED_CHANNEL, this);
    }
    const generation = this.generation;
    const live = this.notifications.live(CATALOG_CHANGED_CHANNEL);
    const read = await this.revision();
    if (live && generation === this.generation) {
      this.known = Math.max(this.known ?? 0, read);
      this.knownAt = Date.now();
    }
    return Math.max(read, this.known ?? 0);
  }

  /** A sync in this process committed `revision` (other processes hear it from the database). */
  revisionChanged(revision: number): void {
    if (this.known !== null) this.known = Math.max(this.known, revision);
  }

  onNotify(payload: string): void {
    const revision = Number(payload);
    if (Number.isSafeInteger(revision) && this.known !== null) this.known = Math.max(this.known, revision);
  }

  onReset(): void {
    this.generation++;
    this.known = null;
  }

  /** Active brands with their active items matching the filters; brands left without items are dropped. */
  async listActiveBrands(filters: CatalogFilters = {}, manager?: EntityManager): Promise<CatalogBrandListing[]> {
    const query = (manager ?? this.dataSource.manager)
      .createQueryBuilder(CatalogItemEntity, 'i')
      .innerJoin(CatalogBrandEntity, 'b', 'b.brand_key = i.brand_key')
      .where('i.active AND b.active');
    if (filters.search) {
      const escaped = filters.search.replace(/[\\%_]/g, (c) => `\\${c}`);
      query.andWhere(`b.name ILIKE :pattern ESCAPE '\\'`, { pattern: `%${escaped}%` });
    }
    if (filters.currency) query.andWhere('i.currency_code = :currency', { currency: filters.currency.toUpperCase() });
    if (filters.country) query.andWhere(':country = ANY(i.countries)', { country: filters.country.toUpperCase() });
    if (filters.brandKeys) query.andWhere('i.brand_key = ANY(:brandKeys)', { brandKeys: filters.brandKeys });
    const items = await query
      .orderBy('i.currency_code')
      .addOrderBy('i.value_type')
      .addOrderBy('COALESCE(i.face_value, i.min_value)')
      .addOrderBy('i.max_value')
      .addOrderBy('i.utid')
      .getMany();
    if (items.length === 0) return [];

    const brands = await (manager ?? this.dataSource.manager).find(CatalogBrandEntity, {
      where: { brandKey: In([...new Set(items.map((item) => item.brandKey))]) },
    });
    brands.sort(byBrandName);
    const listings = new Map(brands.map((brand) => [brand.brandKey, { brand, items: [] as CatalogItemEntity[] }]));
    for (const item of items) listings.get(item.brandKey)?.items.push(item);
    return [...listings.values()];
  }

  /** One active brand with all its active items, or null (unknown, inactive, or nothing orderable). */
  async findActiveBrand(brandKey: string, manager?: EntityManager): Promise<CatalogBrandListing | null> {
    const [listing] = await this.listActiveBrands({ brandKeys: [brandKey] }, manager);
    return listing ?? null;
  }

  /** Reads the revision and the value in one REPEATABLE READ snapshot, so an ETag always fits its body. */
  snapshot<T>(read: (manager: EntityManager) => Promise<T>): Promise<CatalogSnapshot<T>> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const revision = await this.revision(manager);
      return { revision, value: await read(manager) };
    });
  }

  /** The orderable item with its brand, or null when either is unknown or inactive. */
  async findActiveItem(utid: string): Promise<ActiveCatalogItem | null> {
    const item = await this.items.findOneBy({ utid, active: true });
    if (!item) return null;
    const brand = await this.brands.findOneBy({ brandKey: item.brandKey, active: true });
    return brand ? { item, brand } : null;
  }

  /** The currency of the orderable item, or null when it is unknown or inactive. */
  async activeItemCurrency(utid: string, manager?: EntityManager): Promise<string | null> {
    const items = manager ? manager.getRepository(CatalogItemEntity) : this.items;
    return (await items.findOneBy({ utid, active: true }))?.currencyCode ?? null;
  }

  /**
   * The currencies the catalog offers (those of its active items of active brands), sorted: the
   * currencies an account may hold wallets in (docs/currencies.md). Read again only when the
   * catalog revision moves.
   */
  async currencies(): Promise<string[]> {
    const revision = await this.currentRevision();
    if (this.offered?.revision === revision) return this.offered.currencies;
    const rows: { currency: string }[] = await this.dataSource.query(
      `SELECT DISTINCT i.currency_code AS currency FROM catalog_items i JOIN catalog_brands b ON b.brand_key = i.brand_key
        WHERE i.active AND b.active ORDER BY 1`,
    );
    const currencies = rows.map((row) => row.currency);
    this.offered = { revision, currencies };
    return currencies;
  }

  /** Which of `keys` name active brands (for CHOICE rewards' allowedBrandKeys). */
  async activeBrandKeys(keys: string[], manager?: EntityManager): Promise<string[]> {
    if (keys.length === 0) return [];
    const brands = manager ? manager.getRepository(CatalogBrandEntity) : this.brands;
    const found = await brands.find({ select: { brandKey: true }, where: { brandKey: In(keys), active: true } });
    return found.map((brand) => brand.brandKey);
  }
}

const NAME_ORDER = new Intl.Collator('en', { sensitivity: 'base' });

function byBrandName(a: CatalogBrandEntity, b: CatalogBrandEntity): number {
  return NAME_ORDER.compare(a.name, b.name) || (a.brandKey < b.brandKey ? -1 : a.brandKey > b.brandKey ? 1 : 0);
}
