import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scheduled sends (docs/delivery.md, Scheduled sends).
 *
 * - rewards.deliver_at: when a scheduled send reaches its recipient; null for a send delivered at
 *   once. The reward stays CREATED, its value held, until then.
 * - rewards_deliver_due_idx: the due-sender's scan, only over rewards still waiting to be delivered,
 *   so it stays small however many rewards have been delivered before.
 */
export class ScheduledSends1764800000000 implements MigrationInterface {
  name = 'ScheduledSends1764800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE rewards ADD COLUMN deliver_at timestamptz`);
    await db.query(`CREATE INDEX rewards_deliver_due_idx ON rewards (deliver_at) WHERE status = 'CREATED' AND deliver_at IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX rewards_deliver_due_idx`);
    await db.query(`ALTER TABLE rewards DROP COLUMN deliver_at`);
  }
}
