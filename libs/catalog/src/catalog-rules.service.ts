import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { queryRows, ValidationError } from '@app/core';
import { CatalogRules, NO_CATALOG_RULES, rulesAllow } from './catalog-rules';
import { CatalogService } from './catalog.service';

interface RulesRow {
  revision: string;
  account_id: string | null;
  allowed_brand_keys: string[] | null;
  blocked_brand_keys: string[] | null;
}

/** Every account's rules, as of one catalog revision. */
interface RulesSnapshot {
  revision: number;
  byAccount: Map<string, CatalogRules>;
}

/**
 * Catalog rules (docs/catalog-rules.md), kept in memory with the catalog revision: changing rules
 * bumps the revision in the same transaction (a trigger), so the revision in memory, which the
 * database announces to every process, says when the rules in memory are stale. Reading an
 * account's rules therefore costs no round trip while the revision is unchanged.
 */
@Injectable()
export class CatalogRulesService {
  private snapshot: RulesSnapshot | null = null;
  private loading: Promise<RulesSnapshot> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * The account's rules as of catalog revision `atLeast` or later (the current revision when not
   * given). A caller that checked a catalog of revision R passes R: rules newer than R can only come
   * with a newer catalog, which a send's freshness check then refuses, so it checks again.
   */
  async of(accountId: string, atLeast?: number): Promise<CatalogRules> {
    const snapshot = await this.snapshotAt(atLeast ?? (await this.catalog.currentRevision()));
    return snapshot.byAccount.get(accountId) ?? NO_CATALOG_RULES;
  }

  /** Whether the account's current rules let it offer `brandKey`. */
  async allows(accountId: string, brandKey: string): Promise<boolean> {
    return rulesAllow(await this.of(accountId), brandKey);
  }

  /** The account's rules as the database has them in `manager`'s transaction (for checks that must not lag). */
  async read(manager: EntityManager, accountId: string): Promise<CatalogRules> {
    const [row] = await queryRows<RulesRow>(
      manager,
      `SELECT allowed_brand_keys, blocked_brand_keys FROM catalog_rules WHERE account_id = $1`,
      [accountId],
    );
    return row ? toRules(row) : NO_CATALOG_RULES;
  }

  /** Replaces both lists; 422 when a key names no brand the catalog has ever had. Audited. */
  async replace(accountId: string, rules: CatalogRules, origin: AuditOrigin): Promise<CatalogRules> {
    const next: CatalogRules = {
      allowedBrandKeys: rules.allowedBrandKeys && [...new Set(rules.allowedBrandKeys)],
      blockedBrandKeys: [...new Set(rules.blockedBrandKeys)],
    };
    const revision = await this.dataSource.transaction(async (manager) => {
      // Rules changes bump the revision row anyway; locking it first makes concurrent replaces take
      // turns, so each audit entry's "before" is what it really replaced.
      await manager.query(`SELECT 1 FROM catalog_state WHERE id = 1 FOR UPDATE`);
      const named = [...new Set([...(next.allowedBrandKeys ?? []), ...next.blockedBrandKeys])];
      const known = await queryRows<{ brand_key: string }>(manager, `SELECT brand_key FROM catalog_brands WHERE brand_key = ANY($1)`, [named]);
      const unknown = named.filter((key) => !known.some((row) => row.brand_key === key));
      if (unknown.length > 0) throw new ValidationError(`Unknown brand keys: ${unknown.join(', ')}.`);

      const previous = await this.read(manager, accountId);
      await queryRows(
        manager,
        `INSERT INTO catalog_rules (account_id, allowed_brand_keys, blocked_brand_keys) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE
           SET allowed_brand_keys = EXCLUDED.allowed_brand_keys, blocked_brand_keys = EXCLUDED.blocked_brand_keys, updated_at = now()`,
        [accountId, next.allowedBrandKeys, next.blockedBrandKeys],
      );
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'catalog_rules.updated',
        targetType: 'account',
        targetId: accountId,
        metadata: { before: previous, after: next },
      });
      // The trigger has bumped it; other processes hear of it from the database once this commits.
      return this.catalog.revision(manager);
    });
    this.catalog.revisionChanged(revision);
    return next;
  }

  private async snapshotAt(revision: number): Promise<RulesSnapshot> {
    if (this.snapshot && this.snapshot.revision >= revision) return this.snapshot;
    // Concurrent requests share one load; a load that comes back too old is not retried here: the
    // revision only grows, and the next caller that needs newer rules loads again.
    this.loading ??= this.load().finally(() => (this.loading = null));
    const loaded = await this.loading;
    if (!this.snapshot || loaded.revision > this.snapshot.revision) this.snapshot = loaded;
    return this.snapshot.revision >= revision ? this.snapshot : this.snapshotAt(revision);
  }

  /** The revision and every account's rules in one statement, so they belong together. */
  private async load(): Promise<RulesSnapshot> {
    const rows = (await this.dataSource.query(
      `SELECT s.revision::text AS revision, r.account_id, r.allowed_brand_keys, r.blocked_brand_keys
         FROM catalog_state s LEFT JOIN catalog_rules r ON true
        WHERE s.id = 1`,
    )) as RulesRow[];
    const byAccount = new Map<string, CatalogRules>();
    for (const row of rows) if (row.account_id) byAccount.set(row.account_id, toRules(row));
    return { revision: Number(rows[0].revision), byAccount };
  }
}

function toRules(row: Pick<RulesRow, 'allowed_brand_keys' | 'blocked_brand_keys'>): CatalogRules {
  return { allowedBrandKeys: row.allowed_brand_keys, blockedBrandKeys: row.blocked_brand_keys ?? [] };
}
