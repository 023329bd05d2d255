import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reward's pending e-mail or text jobs, found by the reward (docs/delivery.md, `emailStatus`).
 * When a job finishes, the reward's `emailStatus` / `smsStatus` moves only if no other job of that
 * channel is still pending for it. Without this index that question walked every pending job of
 * every account (`mail_jobs_pending_idx` is ordered by age), so each finished job cost as much as
 * the whole backlog: a drain of 100,000 scheduled sends spent ~23 ms per e-mail on it. The index
 * holds pending rows only, so it stays as small as the backlog.
 */
export class MailJobsPendingByReward1764850000000 implements MigrationInterface {
  name = 'MailJobsPendingByReward1764850000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX mail_jobs_pending_reward_idx ON mail_jobs (reward_id, channel) WHERE status = 'PENDING'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX mail_jobs_pending_reward_idx`);
  }
}
