import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Our copy of the supplier catalog, so reads never wait on the supplier. Rows are never deleted:
 * rewards reference utids, so an item the supplier stops offering only becomes inactive.
 */
export class Catalog1763760000000 implements MigrationInterface {
  name = 'Catalog1763760000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE catalog_brands (
        brand_key text PRIMARY KEY CONSTRAINT catalog_brands_brand_key_check CHECK (char_length(brand_key) BETWEEN 1 AND 100),
        name text NOT NULL,
        description text NOT NULL,
        short_description text NOT NULL,
        disclaimer text NOT NULL,
        image_url text NOT NULL,
        categories text[] NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE catalog_items (
        utid text PRIMARY KEY,
        brand_key text NOT NULL REFERENCES catalog_brands (brand_key),
        reward_name text NOT NULL,
        currency_code character(3) NOT NULL CONSTRAINT catalog_items_currency_code_check CHECK (currency_code ~ '^[A-Z]{3}$'),
        value_type text NOT NULL CONSTRAINT catalog_items_value_type_check CHECK (value_type IN ('FIXED_VALUE', 'VARIABLE_VALUE')),
        face_value numeric(12,2),
        min_value numeric(12,2),
        max_value numeric(12,2),
        countries text[] NOT NULL,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- A fixed item has exactly one value; a variable item exactly one non-empty range.
        CONSTRAINT catalog_items_values_check CHECK (
          (value_type = 'FIXED_VALUE' AND face_value > 0 AND min_value IS NULL AND max_value IS NULL)
          OR (value_type = 'VARIABLE_VALUE' AND face_value IS NULL AND min_value > 0 AND max_value >= min_value)
        )
      )`);
    await db.query(`CREATE INDEX catalog_items_brand_key_idx ON catalog_items (brand_key)`);
    // One row: the revision is bumped by every sync that changes the catalog, and is what ETags derive from.
    await db.query(`
      CREATE TABLE catalog_state (
        id smallint PRIMARY KEY DEFAULT 1 CONSTRAINT catalog_state_single_row_check CHECK (id = 1),
        revision bigint NOT NULL DEFAULT 0,
        changed_at timestamptz,
        synced_at timestamptz
      )`);
    await db.query(`INSERT INTO catalog_state (id) VALUES (1)`);

    // The commit that bumps the catalog revision announces it, so processes can keep it in memory.
    await db.query(`
      CREATE FUNCTION notify_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('catalog_changed', NEW.revision::text);
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER catalog_state_changed_notify AFTER UPDATE OF revision ON catalog_state
      FOR EACH ROW WHEN (NEW.revision IS DISTINCT FROM OLD.revision) EXECUTE FUNCTION notify_catalog_changed()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE catalog_state`);
    await db.query(`DROP FUNCTION notify_catalog_changed()`);
    await db.query(`DROP TABLE catalog_items`);
    await db.query(`DROP TABLE catalog_brands`);
  }
}
