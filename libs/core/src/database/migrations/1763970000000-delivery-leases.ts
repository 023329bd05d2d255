import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Short, renewed leases on webhook deliveries and the bring-forward of a recovered endpoint's
 * backlog (docs/webhooks.md, Delivery; docs/operations.md, Leases).
 */
export class DeliveryLeases1763970000000 implements MigrationInterface {
  name = 'DeliveryLeases1763970000000';

  async up(db: QueryRunner): Promise<void> {
    // Set while an attempt is under way (equal to next_attempt_at, which the worker keeps moving on);
    // NULL once the attempt is recorded. Tells a lease from a back-off.
    await db.query(`ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz`);
    // The earliest retry the receiver asked for with Retry-After: a bring-forward never goes before it.
    await db.query(`ALTER TABLE webhook_deliveries ADD COLUMN retry_not_before timestamptz`);
    // Since when attempts to the endpoint have been failing (a retry was scheduled); cleared by a success.
    await db.query(`ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhook_endpoints DROP COLUMN failing_since`);
    await db.query(`ALTER TABLE webhook_deliveries DROP COLUMN retry_not_before`);
    await db.query(`ALTER TABLE webhook_deliveries DROP COLUMN leased_until`);
  }
}
