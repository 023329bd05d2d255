import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A text message besides the reward e-mail (docs/delivery.md, SMS).
 *
 * - rewards.recipient_phone: the recipient's mobile number in E.164 (`+` and up to 15 digits), or
 *   null when the send gave none.
 * - rewards.sms_status: where the reward's latest text stands: QUEUED, SENT (the provider took it)
 *   or FAILED; null exactly when there is no phone.
 * - mail_jobs.channel: a delivery job is an e-mail (`email`, every existing row) or a text (`sms`);
 *   both share the lease, the retries and the sweep.
 */
export class RewardSms1764820000000 implements MigrationInterface {
  name = 'RewardSms1764820000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE rewards
        ADD COLUMN recipient_phone text
          CONSTRAINT rewards_recipient_phone_check CHECK (recipient_phone ~ '^\\+[1-9][0-9]{1,14}$'),
        ADD COLUMN sms_status text
          CONSTRAINT rewards_sms_status_check CHECK (sms_status IN ('QUEUED', 'SENT', 'FAILED')),
        ADD CONSTRAINT rewards_sms_status_phone_check CHECK ((sms_status IS NULL) = (recipient_phone IS NULL))`);
    await db.query(`
      ALTER TABLE mail_jobs
        ADD COLUMN channel text NOT NULL DEFAULT 'email'
          CONSTRAINT mail_jobs_channel_check CHECK (channel IN ('email', 'sms'))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE mail_jobs DROP COLUMN channel`);
    await db.query(`ALTER TABLE rewards DROP CONSTRAINT rewards_sms_status_phone_check, DROP COLUMN sms_status, DROP COLUMN recipient_phone`);
  }
}
