import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries are claimed per endpoint in batches (the due ones of one endpoint, oldest first), and
 * the sweep asks per endpoint whether any is overdue: both read this index.
 */
export class WebhookDueByEndpoint1763805000000 implements MigrationInterface {
  name = 'WebhookDueByEndpoint1763805000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'PENDING'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_endpoint_due_idx`);
  }
}
