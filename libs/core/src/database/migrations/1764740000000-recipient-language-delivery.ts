import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The recipient's language and the delivery of the reward e-mail (docs/recipient-language.md,
 * docs/delivery.md).
 *
 * - rewards.recipient_language: the language the e-mail and the page speak (null: English, and the
 *   page follows the browser).
 * - rewards.email_status: where the reward's latest e-mail stands: QUEUED until the relay accepts it
 *   (DELIVERED) or refuses it for good (FAILED); SCHEDULED is kept for sends that wait for a delivery
 *   time. Existing rewards take the state of their latest e-mail job.
 * - mail_jobs.next_attempt_at: after a temporary refusal, when the next attempt is due (on the
 *   service's clock); the sweeper enqueues it then and not before.
 */
export class RecipientLanguageDelivery1764740000000 implements MigrationInterface {
  name = 'RecipientLanguageDelivery1764740000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE rewards
        ADD COLUMN recipient_language text
          CONSTRAINT rewards_recipient_language_check CHECK (recipient_language IN ('en', 'es', 'fr', 'de', 'it', 'pt', 'nl')),
        ADD COLUMN email_status text NOT NULL DEFAULT 'QUEUED'
          CONSTRAINT rewards_email_status_check CHECK (email_status IN ('SCHEDULED', 'QUEUED', 'DELIVERED', 'FAILED'))`);
    await db.query(`
      UPDATE rewards r SET email_status = CASE m.status WHEN 'SENT' THEN 'DELIVERED' ELSE m.status END
        FROM (SELECT DISTINCT ON (reward_id) reward_id, status FROM mail_jobs ORDER BY reward_id, created_at DESC) m
       WHERE m.reward_id = r.id AND m.status IN ('SENT', 'FAILED')`);
    await db.query(`ALTER TABLE mail_jobs ADD COLUMN next_attempt_at timestamptz`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE mail_jobs DROP COLUMN next_attempt_at`);
    await db.query(`ALTER TABLE rewards DROP COLUMN email_status, DROP COLUMN recipient_language`);
  }
}
