import { MigrationInterface, QueryRunner } from 'typeorm';

/** The commit that bumps the catalog revision announces it, so processes can keep it in memory. */
export class CatalogRevisionNotify1763830000000 implements MigrationInterface {
  name = 'CatalogRevisionNotify1763830000000';

  async up(db: QueryRunner): Promise<void> {
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
    await db.query(`DROP TRIGGER catalog_state_changed_notify ON catalog_state`);
    await db.query(`DROP FUNCTION notify_catalog_changed()`);
  }
}
