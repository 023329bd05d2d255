import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reward reminders (docs/delivery.md, Reminders).
 *
 * - accounts.reminder_after_days, reminder_before_expiry_days: the account's reminder settings (none
 *   by default); reminder_settings_at: when they were last saved (reminders that fell due before
 *   then are not sent, so turning reminders on does not e-mail every old reward at once).
 * - rewards.reminders: false when the send opted out (`reminders: false`).
 * - rewards.remind_at: when the reminder sweep next looks at the reward (null: never again). The
 *   partial index holds only those rows, so the sweep's scan stays small however many rewards exist.
 * - rewards.reminded_after_days, reminded_before_expiry: the reminders the reward has had (each once).
 * - mail_jobs.kind 'reminder': a reminder e-mail.
 */
export class RewardReminders1764810000000 implements MigrationInterface {
  name = 'RewardReminders1764810000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE accounts
        ADD COLUMN reminder_after_days smallint[] NOT NULL DEFAULT '{}'
          CONSTRAINT accounts_reminder_after_days_check
          CHECK (cardinality(reminder_after_days) <= 3 AND 1 <= ALL (reminder_after_days) AND 90 >= ALL (reminder_after_days)),
        ADD COLUMN reminder_before_expiry_days smallint
          CONSTRAINT accounts_reminder_before_expiry_days_check CHECK (reminder_before_expiry_days BETWEEN 1 AND 30),
        ADD COLUMN reminder_settings_at timestamptz`);
    await db.query(`
      ALTER TABLE rewards
        ADD COLUMN reminders boolean NOT NULL DEFAULT true,
        ADD COLUMN remind_at timestamptz,
        ADD COLUMN reminded_after_days smallint[] NOT NULL DEFAULT '{}',
        ADD COLUMN reminded_before_expiry boolean NOT NULL DEFAULT false`);
    await db.query(`CREATE INDEX rewards_remind_at_idx ON rewards (remind_at) WHERE remind_at IS NOT NULL`);
    await db.query(`ALTER TABLE mail_jobs DROP CONSTRAINT mail_jobs_kind_check`);
    await db.query(`ALTER TABLE mail_jobs ADD CONSTRAINT mail_jobs_kind_check CHECK (kind IN ('reward', 'resend', 'reminder'))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM mail_jobs WHERE kind = 'reminder'`);
    await db.query(`ALTER TABLE mail_jobs DROP CONSTRAINT mail_jobs_kind_check`);
    await db.query(`ALTER TABLE mail_jobs ADD CONSTRAINT mail_jobs_kind_check CHECK (kind IN ('reward', 'resend'))`);
    await db.query(`DROP INDEX rewards_remind_at_idx`);
    await db.query(`ALTER TABLE rewards DROP COLUMN reminded_before_expiry, DROP COLUMN reminded_after_days, DROP COLUMN remind_at, DROP COLUMN reminders`);
    await db.query(`ALTER TABLE accounts DROP COLUMN reminder_settings_at, DROP COLUMN reminder_before_expiry_days, DROP COLUMN reminder_after_days`);
  }
}
