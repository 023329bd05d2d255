import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counts of each account's lists (docs/pagination.md, Totals), kept by triggers in the transaction
 * that changes the rows. A change appends a row to list_count_changes (no lock, so sends of one
 * merchant never queue on a counter); compact_list_counts() folds those rows into list_counts.
 * A count is the sum over both tables, read in one snapshot, so it is exact before and after folding.
 *
 * Each count has a total row (level 0). Seq-ordered lists are also counted per block of 2^20 seq
 * values (level 1) and of 2^12 (level 2), so a deep page finds the block it starts in from at
 * most a few hundred count rows and skips at most 4,096 index entries.
 */
export class ListCounts1763950000000 implements MigrationInterface {
  name = 'ListCounts1763950000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE list_counts (
        account_id text NOT NULL,
        list text NOT NULL,
        level smallint NOT NULL,
        block bigint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (account_id, list, level, block)
      )`);
    await db.query(`
      CREATE TABLE list_count_changes (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id text NOT NULL,
        list text NOT NULL,
        level smallint NOT NULL,
        block bigint NOT NULL,
        n bigint NOT NULL
      )`);
    await db.query(`CREATE INDEX list_count_changes_account_idx ON list_count_changes (account_id, list, level, block) INCLUDE (n)`);
    // The rows a seq-ordered row counts in: the total, its coarse block and its fine block.
    await db.query(`
      CREATE FUNCTION list_count_blocks(seq bigint) RETURNS TABLE (level smallint, block bigint) LANGUAGE sql IMMUTABLE AS $$
        VALUES (0::smallint, 0::bigint), (1::smallint, seq >> 20), (2::smallint, seq >> 12)
      $$`);

    // Rewards: every reward under 'rewards', and under 'rewards:<status>' for its current status.
    await db.query(`
      CREATE FUNCTION rewards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, level, block, n)
          SELECT r.account_id, k.list, b.level, b.block, count(*)
            FROM new_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
            CROSS JOIN LATERAL list_count_blocks(r.seq) AS b
           GROUP BY 1, 2, 3, 4;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, level, block, n)
          SELECT r.account_id, k.list, b.level, b.block, -count(*)
            FROM old_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
            CROSS JOIN LATERAL list_count_blocks(r.seq) AS b
           GROUP BY 1, 2, 3, 4;
        ELSE
          INSERT INTO list_count_changes (account_id, list, level, block, n)
          SELECT moved.account_id, moved.list, b.level, b.block, sum(moved.n)
            FROM (SELECT o.account_id, 'rewards:' || o.status AS list, o.seq, -1 AS n
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status
                  UNION ALL
                  SELECT r.account_id, 'rewards:' || r.status, r.seq, 1
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status) AS moved
            CROSS JOIN LATERAL list_count_blocks(moved.seq) AS b
           GROUP BY 1, 2, 3, 4;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER rewards_count_insert AFTER INSERT ON rewards REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION rewards_count_changes()`);
    await db.query(`CREATE TRIGGER rewards_count_update AFTER UPDATE ON rewards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION rewards_count_changes()`);
    await db.query(`CREATE TRIGGER rewards_count_delete AFTER DELETE ON rewards REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION rewards_count_changes()`);

    // Issued value: the sum of amount_cents of the account's ISSUED cards, under 'issued_cents'.
    await db.query(`
      CREATE FUNCTION reward_cards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, level, block, n)
          SELECT account_id, 'issued_cents', 0, 0, sum(amount_cents) FROM new_rows WHERE status = 'ISSUED' GROUP BY 1;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, level, block, n)
          SELECT account_id, 'issued_cents', 0, 0, -sum(amount_cents) FROM old_rows WHERE status = 'ISSUED' GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, level, block, n)
          SELECT account_id, 'issued_cents', 0, 0, sum(n)
            FROM (SELECT account_id, -amount_cents AS n FROM old_rows WHERE status = 'ISSUED'
                  UNION ALL
                  SELECT account_id, amount_cents FROM new_rows WHERE status = 'ISSUED') AS moved
           GROUP BY 1
          HAVING sum(n) <> 0;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER reward_cards_count_insert AFTER INSERT ON reward_cards REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reward_cards_count_changes()`);
    await db.query(`CREATE TRIGGER reward_cards_count_update AFTER UPDATE ON reward_cards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reward_cards_count_changes()`);
    await db.query(`CREATE TRIGGER reward_cards_count_delete AFTER DELETE ON reward_cards REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION reward_cards_count_changes()`);

    // The ledger is append-only (its own trigger refuses UPDATE and DELETE), so inserts are all there is.
    await db.query(`
      CREATE FUNCTION wallet_transactions_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO list_count_changes (account_id, list, level, block, n)
        SELECT r.account_id, 'wallet_transactions', b.level, b.block, count(*)
          FROM new_rows r CROSS JOIN LATERAL list_count_blocks(r.seq) AS b GROUP BY 1, 3, 4;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER wallet_transactions_count_insert AFTER INSERT ON wallet_transactions REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wallet_transactions_count_changes()`);

    // Top-ups are listed by (created_at, id), not seq: one block.
    await db.query(`
      CREATE FUNCTION topups_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, level, block, n) SELECT account_id, 'topups', 0, 0, count(*) FROM new_rows GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, level, block, n) SELECT account_id, 'topups', 0, 0, -count(*) FROM old_rows GROUP BY 1;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER topups_count_insert AFTER INSERT ON topups REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION topups_count_changes()`);
    await db.query(`CREATE TRIGGER topups_count_delete AFTER DELETE ON topups REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION topups_count_changes()`);

    // Folds up to max_rows change rows into list_counts. SKIP LOCKED keeps concurrent folders on
    // disjoint rows; the upsert touches list_counts rows in key order, so two folders never deadlock.
    await db.query(`
      CREATE FUNCTION compact_list_counts(max_rows integer) RETURNS bigint LANGUAGE sql AS $$
        WITH taken AS (
          SELECT id FROM list_count_changes ORDER BY id LIMIT max_rows FOR UPDATE SKIP LOCKED
        ), moved AS (
          DELETE FROM list_count_changes c USING taken WHERE c.id = taken.id RETURNING c.account_id, c.list, c.level, c.block, c.n
        ), folded AS (
          INSERT INTO list_counts (account_id, list, level, block, n)
          SELECT account_id, list, level, block, sum(n) FROM moved GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (account_id, list, level, block) DO UPDATE SET n = list_counts.n + excluded.n
          RETURNING 1
        )
        SELECT count(*) FROM moved
      $$`);

    // Rows that existed before this migration.
    await db.query(`
      INSERT INTO list_counts (account_id, list, level, block, n)
      SELECT account_id, list, level, block, sum(n) FROM (
        SELECT r.account_id, 'rewards' AS list, b.level, b.block, count(*) AS n FROM rewards r, list_count_blocks(r.seq) b GROUP BY 1, 3, 4
        UNION ALL SELECT r.account_id, 'rewards:' || r.status, b.level, b.block, count(*) FROM rewards r, list_count_blocks(r.seq) b GROUP BY 1, 2, 3, 4
        UNION ALL SELECT r.account_id, 'wallet_transactions', b.level, b.block, count(*) FROM wallet_transactions r, list_count_blocks(r.seq) b GROUP BY 1, 3, 4
        UNION ALL SELECT account_id, 'issued_cents', 0, 0, sum(amount_cents) FROM reward_cards WHERE status = 'ISSUED' GROUP BY 1
        UNION ALL SELECT account_id, 'topups', 0, 0, count(*) FROM topups GROUP BY 1
      ) AS existing GROUP BY 1, 2, 3, 4`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER topups_count_insert ON topups`);
    await db.query(`DROP TRIGGER topups_count_delete ON topups`);
    await db.query(`DROP TRIGGER wallet_transactions_count_insert ON wallet_transactions`);
    for (const op of ['insert', 'update', 'delete']) {
      await db.query(`DROP TRIGGER reward_cards_count_${op} ON reward_cards`);
      await db.query(`DROP TRIGGER rewards_count_${op} ON rewards`);
    }
    for (const fn of ['compact_list_counts(integer)', 'list_count_blocks(bigint)', 'topups_count_changes()', 'wallet_transactions_count_changes()', 'reward_cards_count_changes()', 'rewards_count_changes()']) {
      await db.query(`DROP FUNCTION ${fn}`);
    }
    await db.query(`DROP TABLE list_count_changes`);
    await db.query(`DROP TABLE list_counts`);
  }
}
