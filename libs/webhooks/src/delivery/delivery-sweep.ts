import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Statement, Sweepers } from '@app/core';
import { DELIVERY_LEASE } from './delivery-leases';
import { WEBHOOK_BOOKKEEPING_DB } from './webhook-bookkeeping';
import { WebhookDeliverer } from './webhook-deliverer';

export const DELIVERY_SWEEP = 'webhook-deliveries';
const SWEEP_INTERVAL_MS = 5_000;
/** A due delivery older than this with no attempt under way has lost its job. */
const SWEEP_GRACE_SECONDS = 10;

/**
 * Sends the due deliveries that nothing is sending: their job was lost (a crash after the commit,
 * a Redis hiccup), or the worker that claimed them died and their lease ran out. Registered with
 * the worker's sweeps (libs/core/src/background/sweepers.ts); any number of workers run it.
 */
@Injectable()
export class DeliverySweep implements OnModuleInit {
  constructor(
    @Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource,
    private readonly deliverer: WebhookDeliverer,
    private readonly sweepers: Sweepers,
  ) {}

  onModuleInit(): void {
    this.sweepers.register({ name: DELIVERY_SWEEP, everyMs: SWEEP_INTERVAL_MS, run: () => this.sweep() });
  }

  async sweep(): Promise<void> {
    const { text, params } = this.statement();
    const due = (await this.dataSource.query(text, params)) as { id: string }[];
    for (const { id } of due) void this.deliverer.kick(id);
  }

  /** The endpoints with deliveries to send (for the golden SQL too). */
  statement(): { text: string; params: unknown[] } {
    const statement = new Statement();
    // Not paused endpoints: their deliveries wait for the resume, which sends them itself. An expired
    // lease (its worker stopped renewing it: dead) is sent at once; any other due delivery after a grace.
    const text = [
      `SELECT e.id FROM webhook_endpoints e`,
      ` WHERE e.active AND EXISTS (`,
      `         SELECT 1 FROM webhook_deliveries d`,
      `          WHERE d.endpoint_id = e.id AND d.status = 'PENDING' AND d.next_attempt_at <= clock_timestamp()`,
      `            AND (${DELIVERY_LEASE.expired('d')} OR d.next_attempt_at <= clock_timestamp() - make_interval(secs => ${statement.param(SWEEP_GRACE_SECONDS)})))`,
    ].join('\n');
    return { text, params: statement.params };
  }
}
