import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secrets at rest (docs/secrets.md). Card credentials become text, to hold the key ring's sealed
 * form; webhook secrets, TOTP secrets and stored idempotent responses are text already. A reward
 * keeps one redemption link (docs/redemption.md): its token, sealed, beside the hash it is found
 * by. Values written before this are sealed by `encryption:rotate` (and read as they are until then);
 * the links e-mails carried before stay valid, and a reward without a sealed link gets one the first
 * time it is needed.
 */
export class SecretsAtRest1763920000000 implements MigrationInterface {
  name = 'SecretsAtRest1763920000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE reward_cards ALTER COLUMN credentials TYPE text USING credentials::text`);
    // The account is part of the sealed token's associated data, so the row carries it.
    await db.query(`ALTER TABLE redemption_links ADD COLUMN account_id text, ADD COLUMN token_sealed text`);
    await db.query(`UPDATE redemption_links l SET account_id = r.account_id FROM rewards r WHERE r.id = l.reward_id`);
    await db.query(`ALTER TABLE redemption_links ALTER COLUMN account_id SET NOT NULL`);
    // The one readable link of a reward; older rows (one per e-mail) keep opening it.
    await db.query(`CREATE UNIQUE INDEX redemption_links_one_per_reward ON redemption_links (reward_id) WHERE token_sealed IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX redemption_links_one_per_reward`);
    await db.query(`ALTER TABLE redemption_links DROP COLUMN token_sealed, DROP COLUMN account_id`);
    await db.query(`ALTER TABLE reward_cards ALTER COLUMN credentials TYPE jsonb USING credentials::jsonb`);
  }
}
