import { MigrationInterface, QueryRunner } from 'typeorm';
import { ListCounts1763950000000 } from './1763950000000-list-counts';

/**
 * Cheaper count changes (docs/pagination.md, Totals). A change row used to be written for each
 * level a count is kept at (the total, the coarse block and the fine block): nine rows, each with
 * two index entries, for one CHOICE send, which made the send's WAL about 60 % larger. Now a change
 * row names only its fine block (NULL for the lists that are not ordered by seq), and the fold
 * derives the total and the coarse block from it: three rows with one index entry each. Readers sum
 * the pending changes of a level the same way (libs/core/src/pagination/list-counts.ts).
 *
 * The table loses its identity key: the fold takes rows by their physical address while they are
 * locked (FOR UPDATE SKIP LOCKED), which is stable for as long as the lock is held.
 */
export class ListCountChangesFine1763975000000 implements MigrationInterface {
  name = 'ListCountChangesFine1763975000000';

  async up(db: QueryRunner): Promise<void> {
    // Fold what is pending under the old layout first; nothing writes changes while this runs.
    await db.query(`LOCK TABLE list_count_changes IN ACCESS EXCLUSIVE MODE`);
    await db.query(`SELECT compact_list_counts(2147483647)`);
    await db.query(`DROP INDEX list_count_changes_account_idx`);
    await db.query(`ALTER TABLE list_count_changes DROP COLUMN id, DROP COLUMN level, ALTER COLUMN block DROP NOT NULL`);
    await db.query(`CREATE INDEX list_count_changes_account_idx ON list_count_changes (account_id, list, block) INCLUDE (n)`);
    await db.query(`CREATE FUNCTION list_count_fine_block(seq bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT seq >> 12'`);

    await db.query(`
      CREATE OR REPLACE FUNCTION rewards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), count(*)
            FROM new_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), -count(*)
            FROM old_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT moved.account_id, moved.list, list_count_fine_block(moved.seq), sum(moved.n)
            FROM (SELECT o.account_id, 'rewards:' || o.status AS list, o.seq, -1 AS n
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status
                  UNION ALL
                  SELECT r.account_id, 'rewards:' || r.status, r.seq, 1
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status) AS moved
           GROUP BY 1, 2, 3;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION reward_cards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'issued_cents', NULL, sum(amount_cents) FROM new_rows WHERE status = 'ISSUED' GROUP BY 1;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'issued_cents', NULL, -sum(amount_cents) FROM old_rows WHERE status = 'ISSUED' GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'issued_cents', NULL, sum(n)
            FROM (SELECT account_id, -amount_cents AS n FROM old_rows WHERE status = 'ISSUED'
                  UNION ALL
                  SELECT account_id, amount_cents FROM new_rows WHERE status = 'ISSUED') AS moved
           GROUP BY 1
          HAVING sum(n) <> 0;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION wallet_transactions_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO list_count_changes (account_id, list, block, n)
        SELECT account_id, 'wallet_transactions', list_count_fine_block(seq), count(*) FROM new_rows GROUP BY 1, 3;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION topups_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n) SELECT account_id, 'topups', NULL, count(*) FROM new_rows GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n) SELECT account_id, 'topups', NULL, -count(*) FROM old_rows GROUP BY 1;
        END IF;
        RETURN NULL;
      END $$`);

    // A change counts in its list's total (level 0) and, when it has a fine block, in that block
    // (level 2) and in the coarse block holding it (level 1: 2^8 fine blocks of 2^12 seq values).
    await db.query(`
      CREATE OR REPLACE FUNCTION compact_list_counts(max_rows integer) RETURNS bigint LANGUAGE sql AS $$
        WITH moved AS (
          DELETE FROM list_count_changes
           WHERE ctid = ANY (ARRAY(SELECT ctid FROM list_count_changes LIMIT max_rows FOR UPDATE SKIP LOCKED))
          RETURNING account_id, list, block, n
        ), levels AS (
          SELECT account_id, list, 0::smallint AS level, 0::bigint AS block, n FROM moved
          UNION ALL SELECT account_id, list, 1::smallint, block >> 8, n FROM moved WHERE block IS NOT NULL
          UNION ALL SELECT account_id, list, 2::smallint, block, n FROM moved WHERE block IS NOT NULL
        ), folded AS (
          INSERT INTO list_counts (account_id, list, level, block, n)
          SELECT account_id, list, level, block, sum(n) FROM levels GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (account_id, list, level, block) DO UPDATE SET n = list_counts.n + excluded.n
          RETURNING 1
        )
        SELECT count(*) FROM moved
      $$`);
    await db.query(`DROP FUNCTION list_count_blocks(bigint)`);
  }

  /** Back to the earlier layout by rebuilding it: the counts are recounted from the rows (once, O(history)). */
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER topups_count_insert ON topups`);
    await db.query(`DROP TRIGGER topups_count_delete ON topups`);
    await db.query(`DROP TRIGGER wallet_transactions_count_insert ON wallet_transactions`);
    for (const op of ['insert', 'update', 'delete']) {
      await db.query(`DROP TRIGGER reward_cards_count_${op} ON reward_cards`);
      await db.query(`DROP TRIGGER rewards_count_${op} ON rewards`);
    }
    for (const fn of ['compact_list_counts(integer)', 'list_count_fine_block(bigint)', 'topups_count_changes()', 'wallet_transactions_count_changes()', 'reward_cards_count_changes()', 'rewards_count_changes()']) {
      await db.query(`DROP FUNCTION ${fn}`);
    }
    await db.query(`DROP TABLE list_count_changes`);
    await db.query(`DROP TABLE list_counts`);
    await new ListCounts1763950000000().up(db);
  }
}
