import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { recordEvents } from '@app/core';
import { catalogUpdatedEvents, ItemChange } from './catalog-changes';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier, SupplierBrand } from './supplier/supplier.port';
import { CatalogService } from './catalog.service';

/** catalog.updated events written per statement (one per account that sees a change). */
const EVENTS_PER_STATEMENT = 1_000;

export interface CatalogSyncResult {
  /** Whether anything changed, and so whether the revision was bumped. */
  changed: boolean;
  revision: number;
  brands: { upserted: number; deactivated: number };
  items: { upserted: number; deactivated: number };
}

/**
 * Copies the supplier catalog into catalog_brands / catalog_items, so reads never call the supplier.
 * Runs at start (a fresh database gets a catalog before the first request) and hourly on the worker.
 */
@Injectable()
export class CatalogSyncService implements OnApplicationBootstrap {
  private readonly logger = new Logger(CatalogSyncService.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(GIFT_CARD_SUPPLIER) private readonly supplier: GiftCardSupplier,
    private readonly catalog: CatalogService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A supplier outage must not keep the API down: the last synced catalog keeps being served.
    await this.syncLogged('start-up');
  }

  async syncLogged(reason: string): Promise<CatalogSyncResult | null> {
    try {
      const result = await this.sync();
      this.logger.log({ reason, ...result }, result.changed ? 'catalog changed' : 'catalog unchanged');
      return result;
    } catch (error) {
      this.logger.error({ err: error, reason }, 'catalog sync failed');
      return null;
    }
  }

  /**
   * One transaction: upsert what the supplier offers, deactivate what it no longer offers (never
   * delete: rewards reference utids), and bump the revision only if a row actually changed.
   */
  async sync(): Promise<CatalogSyncResult> {
    const result = await this.syncOnce();
    if (result.changed) this.catalog.revisionChanged(result.revision);
    return result;
  }

  /**
   * One `catalog.updated` per account whose catalog rules let it see any of the changed items, listing
   * only those (docs/webhooks.md, catalog.updated). Every account's rules as this transaction reads them.
   */
  private async recordCatalogUpdated(db: QueryRunner, changes: ItemChange[]): Promise<void> {
    const accounts = (await db.query(
      `SELECT a.id, r.account_id IS NOT NULL AS ruled, r.allowed_brand_keys, r.blocked_brand_keys
         FROM accounts a LEFT JOIN catalog_rules r ON r.account_id = a.id ORDER BY a.id`,
    )) as { id: string; ruled: boolean; allowed_brand_keys: string[] | null; blocked_brand_keys: string[] | null }[];
    const events = catalogUpdatedEvents(
      accounts.map((a) => ({
        accountId: a.id,
        rules: a.ruled ? { allowedBrandKeys: a.allowed_brand_keys, blockedBrandKeys: a.blocked_brand_keys ?? [] } : null,
      })),
      changes,
    );
    for (let i = 0; i < events.length; i += EVENTS_PER_STATEMENT) {
      const chunk = events.slice(i, i + EVENTS_PER_STATEMENT);
      await recordEvents(
        db.manager,
        chunk.map((e) => ({ accountId: e.accountId, type: 'catalog.updated' as const, data: { ...e.data } })),
      );
    }
    this.logger.log({ accounts: events.length, items: changes.length }, 'catalog.updated recorded');
  }

  private async syncOnce(): Promise<CatalogSyncResult> {
    const brands = normalize(await this.supplier.listCatalog());
    const items = brands.flatMap((brand) => brand.items.map((item) => ({ ...item, brandKey: brand.brandKey })));

    return this.dataSource.transaction(async (manager) => {
      const db = manager.queryRunner!;
      // Serializes concurrent syncs (several API and worker processes start together): the second
      // waits, then sees the first's rows and finds nothing to change.
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('catalog-sync'))`);
      // What was offered before, to tell an item offered again or new (added) from one changed.
      const offeredBefore = new Set(
        ((await db.query(`SELECT utid FROM catalog_items WHERE active`)) as { utid: string }[]).map((row) => row.utid),
      );

      const upsertedBrands = await affected(
        db,
        `INSERT INTO catalog_brands AS b (brand_key, name, description, short_description, disclaimer, image_url, categories)
         SELECT "brandKey", name, description, "shortDescription", disclaimer, "imageUrl", categories
         FROM jsonb_to_recordset($1::jsonb) AS x("brandKey" text, name text, description text, "shortDescription" text,
                                                 disclaimer text, "imageUrl" text, categories text[])
         ON CONFLICT (brand_key) DO UPDATE SET
           name = EXCLUDED.name, description = EXCLUDED.description, short_description = EXCLUDED.short_description,
           disclaimer = EXCLUDED.disclaimer, image_url = EXCLUDED.image_url, categories = EXCLUDED.categories,
           active = true, updated_at = now()
         WHERE (b.name, b.description, b.short_description, b.disclaimer, b.image_url, b.categories, b.active)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.description, EXCLUDED.short_description, EXCLUDED.disclaimer,
                             EXCLUDED.image_url, EXCLUDED.categories, true)
         RETURNING brand_key`,
        [JSON.stringify(brands.map(({ items: _items, ...brand }) => brand))],
      );
      const upsertedItemRows = await changedRows<{ utid: string; brand_key: string }>(
        db,
        `INSERT INTO catalog_items AS i (utid, brand_key, reward_name, currency_code, value_type, face_value, min_value, max_value, countries)
         SELECT utid, "brandKey", "rewardName", "currencyCode", "valueType", "faceValue", "minValue", "maxValue", countries
         FROM jsonb_to_recordset($1::jsonb) AS x(utid text, "brandKey" text, "rewardName" text, "currencyCode" text,
                                                 "valueType" text, "faceValue" numeric, "minValue" numeric,
                                                 "maxValue" numeric, countries text[])
         ON CONFLICT (utid) DO UPDATE SET
           brand_key = EXCLUDED.brand_key, reward_name = EXCLUDED.reward_name, currency_code = EXCLUDED.currency_code,
           value_type = EXCLUDED.value_type, face_value = EXCLUDED.face_value, min_value = EXCLUDED.min_value,
           max_value = EXCLUDED.max_value, countries = EXCLUDED.countries, active = true, updated_at = now()
         WHERE (i.brand_key, i.reward_name, i.currency_code, i.value_type, i.face_value, i.min_value, i.max_value, i.countries, i.active)
           IS DISTINCT FROM (EXCLUDED.brand_key, EXCLUDED.reward_name, EXCLUDED.currency_code, EXCLUDED.value_type,
                             EXCLUDED.face_value, EXCLUDED.min_value, EXCLUDED.max_value, EXCLUDED.countries, true)
         RETURNING utid, brand_key`,
        [JSON.stringify(items)],
      );
      const deactivatedItemRows = await changedRows<{ utid: string; brand_key: string }>(
        db,
        `UPDATE catalog_items SET active = false, updated_at = now()
         WHERE active AND NOT (utid = ANY($1::text[])) RETURNING utid, brand_key`,
        [items.map((item) => item.utid)],
      );
      const upsertedItems = upsertedItemRows.length;
      const deactivatedItems = deactivatedItemRows.length;
      const deactivatedBrands = await affected(
        db,
        `UPDATE catalog_brands SET active = false, updated_at = now()
         WHERE active AND NOT (brand_key = ANY($1::text[])) RETURNING brand_key`,
        [brands.map((brand) => brand.brandKey)],
      );

      const changed = upsertedBrands + upsertedItems + deactivatedItems + deactivatedBrands > 0;
      const [state] = (await db.query(
        `UPDATE catalog_state
         SET revision = revision + CASE WHEN $1 THEN 1 ELSE 0 END,
             changed_at = CASE WHEN $1 THEN now() ELSE changed_at END,
             synced_at = now()
         WHERE id = 1 RETURNING revision::text`,
        [changed],
        true,
      )).records as { revision: string }[];
      // catalog.updated commits with the changes it reports, so a sync that changed items emits it exactly once
      // however many processes sync (the lock above: the next one finds nothing to change).
      const itemChanges: ItemChange[] = [
        ...upsertedItemRows.map((row): ItemChange => ({ utid: row.utid, brandKey: row.brand_key, kind: offeredBefore.has(row.utid) ? 'changed' : 'added' })),
        ...deactivatedItemRows.map((row): ItemChange => ({ utid: row.utid, brandKey: row.brand_key, kind: 'removed' })),
      ];
      if (itemChanges.length) await this.recordCatalogUpdated(db, itemChanges);
      return {
        changed,
        revision: Number(state.revision),
        brands: { upserted: upsertedBrands, deactivated: deactivatedBrands },
        items: { upserted: upsertedItems, deactivated: deactivatedItems },
      };
    });
  }
}

async function changedRows<T>(db: QueryRunner, sql: string, parameters: unknown[]): Promise<T[]> {
  const result = await db.query(sql, parameters, true);
  return result.records as T[];
}

async function affected(db: QueryRunner, sql: string, parameters: unknown[]): Promise<number> {
  const result = await db.query(sql, parameters, true);
  return result.records.length;
}

/** Codes are stored upper case, so filters compare them exactly. */
function normalize(brands: SupplierBrand[]): SupplierBrand[] {
  return brands.map((brand) => ({
    ...brand,
    items: brand.items.map((item) => ({
      ...item,
      currencyCode: item.currencyCode.toUpperCase(),
      countries: item.countries.map((country) => country.toUpperCase()),
    })),
  }));
}
