import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Finding rewards (docs/rewards.md, Finding a reward; docs/pagination.md, Sorting):
 *
 * - `recipient=` is a case-insensitive prefix of the recipient's e-mail, first or last name. Each of
 *   the three is an expression index on the account and the lower-cased text with text_pattern_ops,
 *   so `lower(x) LIKE 'pre%'` is one index range per column whatever the database's collation.
 * - `sort=faceValueCents` / `-faceValueCents` walks (account_id, face_value_cents, id): ties broken by
 *   id, and a cursor is a row comparison on the same columns.
 * - `created_by=` walks (account_id, created_by_id, seq), newest first as the list is.
 */
export class RewardSearch1764840000000 implements MigrationInterface {
  name = 'RewardSearch1764840000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX rewards_recipient_email_prefix_idx ON rewards (account_id, lower(recipient_email) text_pattern_ops)`);
    await db.query(`CREATE INDEX rewards_recipient_first_name_prefix_idx ON rewards (account_id, lower(recipient_first_name) text_pattern_ops)`);
    await db.query(
      `CREATE INDEX rewards_recipient_last_name_prefix_idx ON rewards (account_id, lower(recipient_last_name) text_pattern_ops) WHERE recipient_last_name IS NOT NULL`,
    );
    await db.query(`CREATE INDEX rewards_account_face_value_idx ON rewards (account_id, face_value_cents, id)`);
    await db.query(`CREATE INDEX rewards_account_created_by_idx ON rewards (account_id, created_by_id, seq DESC) WHERE created_by_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX rewards_account_created_by_idx`);
    await db.query(`DROP INDEX rewards_account_face_value_idx`);
    await db.query(`DROP INDEX rewards_recipient_last_name_prefix_idx`);
    await db.query(`DROP INDEX rewards_recipient_first_name_prefix_idx`);
    await db.query(`DROP INDEX rewards_recipient_email_prefix_idx`);
  }
}
