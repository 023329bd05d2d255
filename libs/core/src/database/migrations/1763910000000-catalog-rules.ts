import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's own restriction of the catalog (docs/catalog-rules.md). A change of rules bumps the
 * catalog revision in the same transaction, so every process that keeps the catalog in memory (and
 * every ETag) moves on at once, through the revision's existing announcement.
 */
export class CatalogRules1763910000000 implements MigrationInterface {
  name = 'CatalogRules1763910000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE catalog_rules (
        account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
        -- NULL: every brand; never empty (that would allow nothing).
        allowed_brand_keys text[] CONSTRAINT catalog_rules_allowed_check
          CHECK (allowed_brand_keys IS NULL OR cardinality(allowed_brand_keys) > 0),
        blocked_brand_keys text[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE FUNCTION catalog_rules_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE catalog_state SET revision = revision + 1 WHERE id = 1;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER catalog_rules_changed AFTER INSERT OR UPDATE OR DELETE ON catalog_rules
      FOR EACH STATEMENT EXECUTE FUNCTION catalog_rules_bump_revision()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE catalog_rules`);
    await db.query(`DROP FUNCTION catalog_rules_bump_revision()`);
  }
}
