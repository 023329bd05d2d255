import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Card issuance as mark, call, settle (docs/rewards.md, Issuance): `issuing_since` is the lease of
 * the run that is at the supplier for the card (no transaction is held during the call), and
 * `issue_attempts` counts the runs that asked it, so a later run knows to look the order up first.
 */
export class CardIssuanceLease1763940000000 implements MigrationInterface {
  name = 'CardIssuanceLease1763940000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE reward_cards ADD COLUMN issuing_since timestamptz`);
    await db.query(
      `ALTER TABLE reward_cards ADD COLUMN issue_attempts integer NOT NULL DEFAULT 0 CONSTRAINT reward_cards_issue_attempts_check CHECK (issue_attempts >= 0)`,
    );
    // Cards asked of the supplier before this change: the next run looks the order up first.
    await db.query(`UPDATE reward_cards SET issue_attempts = 1 WHERE supplier_requested_at IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE reward_cards DROP COLUMN issue_attempts, DROP COLUMN issuing_since`);
  }
}
