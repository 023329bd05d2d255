import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HeldLease, LeaseHeartbeat, RowLease, Statement } from '@app/core';
import { bookkeepingRows, WEBHOOK_BOOKKEEPING_DB } from './webhook-bookkeeping';

/**
 * How long a claimed attempt keeps others off the delivery without a renewal. Short, so a dead
 * worker's deliveries are taken over within seconds (the sweep kicks expired leases at once); the
 * worker renews the lease of each attempt it still holds once the lease is LEASE_RENEW_AFTER_MS
 * old, however long the receiver takes (docs/webhooks.md, Delivery).
 */
export const DELIVERY_LEASE_MS = 10_000;
/**
 * A held lease is renewed once it is this old; the heartbeat looks every HEARTBEAT_MS, so a lease is
 * renewed at most 4 s after it was taken or last renewed, 6 s before it would run out. An attempt
 * that is answered and recorded sooner (the usual case) costs no renewal at all.
 */
const LEASE_RENEW_AFTER_MS = 3_000;
const HEARTBEAT_MS = 1_000;

/**
 * The lease on a webhook delivery, one attempt at a time (docs/operations.md, Leases). Its end is
 * written to next_attempt_at too, so a leased delivery is not due: the claim and the sweep read the
 * due index only. The attempt's outcome ends it (attempt-recorder.ts), and so does nothing else.
 */
export const DELIVERY_LEASE = new RowLease({
  table: 'webhook_deliveries',
  alias: 'd',
  attempt: 'attempts',
  lease: { until: 'leased_until' },
  pending: (d) => `${d}.status = 'PENDING'`,
  ms: DELIVERY_LEASE_MS,
  alsoUntil: ['next_attempt_at'],
});

/** A delivery leased to this process for one attempt, with what its attempt needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  body: string;
  endpoint_id: string;
  account_id: string;
  url: string;
  /** Sealed (docs/secrets.md); opened only to sign. */
  secret: string;
  previous_secret: string | null;
}

/**
 * The delivery leases of this process: the claim that takes them, and the heartbeat that keeps
 * those it holds alive until their outcome is recorded. Both go through the bookkeeping
 * connections (webhook-bookkeeping.ts).
 */
@Injectable()
export class DeliveryLeases {
  private readonly heartbeat: LeaseHeartbeat;

  constructor(@Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource) {
    this.heartbeat = new LeaseHeartbeat(DELIVERY_LEASE, dataSource.manager, {
      renewAfterMs: LEASE_RENEW_AFTER_MS,
      everyMs: HEARTBEAT_MS,
      logger: new Logger(DeliveryLeases.name),
      what: 'webhook delivery',
    });
  }

  /**
   * Leases up to `limit` due deliveries of the endpoint for one attempt each, oldest first: attempts
   * + 1, and the lease (with next_attempt_at) DELIVERY_LEASE_MS ahead, so no other worker (nor a
   * duplicate job, nor the sweep) sends them meanwhile. A paused (or deleted) endpoint gets nothing:
   * its deliveries wait, untouched, for it to be reactivated. Public for tests that play a worker
   * dying between its claim and its attempts (a claim alone is never renewed).
   *
   * The endpoint's row is only read, in the same statement (one snapshot) as the deliveries: no lock.
   * A pause that commits after that snapshot can only meet deliveries committed before it, i.e. of
   * events from before the pause, which may still go out; a resume that commits after it is followed
   * by its own job, which claims again (docs/webhooks.md, Pausing and 410).
   */
  async claim(endpointId: string, limit: number): Promise<ClaimedDelivery[]> {
    const { text, params } = this.claimStatement(endpointId, limit);
    return bookkeepingRows<ClaimedDelivery>(this.dataSource, text, params);
  }

  claimStatement(endpointId: string, limit: number): { text: string; params: unknown[] } {
    const statement = new Statement();
    const endpoint = statement.with(
      'endpoint',
      `SELECT id, account_id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints WHERE id = ${statement.param(endpointId)} AND active`,
    );
    const text = DELIVERY_LEASE.takeBatch(statement, {
      from: endpoint.name,
      // A second early: a retry's job may fire a moment before its next_attempt_at.
      where: (d) => `${d}.endpoint_id = (SELECT id FROM ${endpoint}) AND ${d}.next_attempt_at <= now() + interval '1 second'`,
      orderBy: (d) => `${d}.next_attempt_at`,
      limit,
      set: { last_attempt_at: 'clock_timestamp()' },
      returning: [
        `d.id, d.attempts, d.event_id, d.payload::text AS body,`,
        `          ${endpoint}.id AS endpoint_id, ${endpoint}.account_id, ${endpoint}.url, ${endpoint}.secret,`,
        `          CASE WHEN ${endpoint}.previous_secret_expires_at > clock_timestamp() THEN ${endpoint}.previous_secret END AS previous_secret`,
      ].join('\n'),
    });
    return { text, params: statement.params };
  }

  /** The heartbeat's statement for these leases (for the golden SQL). */
  renewalStatement(held: HeldLease[]): { text: string; params: unknown[] } {
    const statement = new Statement();
    return { text: DELIVERY_LEASE.renew(statement, held), params: statement.params };
  }

  /** Keeps the delivery's lease alive until `drop` (its outcome recorded); `leasedAt` is when it was taken, on this clock. */
  hold(delivery: ClaimedDelivery, leasedAt: number): void {
    this.heartbeat.hold(delivery.id, delivery.attempts, leasedAt);
  }

  drop(deliveryId: string): void {
    this.heartbeat.drop(deliveryId);
  }

  startHeartbeat(): void {
    this.heartbeat.start();
  }

  stopHeartbeat(): Promise<void> {
    return this.heartbeat.stop();
  }
}
