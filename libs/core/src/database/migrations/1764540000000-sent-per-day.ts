import { MigrationInterface, QueryRunner } from 'typeorm';

/** A reward's list key of value sent: its currency and UTC day. */
const DAY_LIST = `'sent_cents:' || currency || ':' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * The value sent per UTC day and currency, kept (docs/dashboard.md, Overview chart), for the chart
 * of GET /v1/account/overview/daily: `sent_cents:<CUR>:<YYYY-MM-DD>` in list_counts, the sum of the
 * face values of the rewards created that day, as the other kept counts are (docs/pagination.md,
 * Totals): a statement inserting rewards appends one change row per currency and day, never updating
 * a shared row, and the worker folds them. A reward counts on its day whatever happens to it later.
 * Existing rewards are counted once here.
 */
export class SentPerDay1764540000000 implements MigrationInterface {
  name = 'SentPerDay1764540000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION rewards_sent_per_day() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, ${DAY_LIST}, NULL, sum(face_value_cents) FROM new_rows GROUP BY 1, 2;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, ${DAY_LIST}, NULL, -sum(face_value_cents) FROM old_rows GROUP BY 1, 2;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER rewards_sent_per_day_insert AFTER INSERT ON rewards REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION rewards_sent_per_day()`);
    await db.query(`CREATE TRIGGER rewards_sent_per_day_delete AFTER DELETE ON rewards REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION rewards_sent_per_day()`);
    await db.query(`
      INSERT INTO list_count_changes (account_id, list, block, n)
      SELECT account_id, ${DAY_LIST}, NULL, sum(face_value_cents) FROM rewards GROUP BY 1, 2`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER rewards_sent_per_day_delete ON rewards`);
    await db.query(`DROP TRIGGER rewards_sent_per_day_insert ON rewards`);
    await db.query(`DROP FUNCTION rewards_sent_per_day()`);
    await db.query(`DELETE FROM list_count_changes WHERE list LIKE 'sent\\_cents:%:%'`);
    await db.query(`DELETE FROM list_counts WHERE list LIKE 'sent\\_cents:%:%'`);
  }
}
