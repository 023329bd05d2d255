import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events are no longer announced by NOTIFY: PostgreSQL serialises the commits of all transactions
 * that NOTIFY (one lock from pre-commit until the commit record is flushed), so every send in the
 * cluster committed one at a time. The relay polls a partial index instead, and is woken in-process.
 */
export class EventsWithoutNotify1763840000000 implements MigrationInterface {
  name = 'EventsWithoutNotify1763840000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER events_notify_inserted ON events`);
    await db.query(`DROP FUNCTION events_notify_inserted()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION events_notify_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('events_inserted', '');
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER events_notify_inserted AFTER INSERT ON events
      FOR EACH STATEMENT EXECUTE FUNCTION events_notify_inserted()`);
  }
}
