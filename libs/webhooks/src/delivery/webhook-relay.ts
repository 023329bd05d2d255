import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { markEventsDispatched, newId } from '@app/core';
import { ClaimedDelivery, DELIVERY_LEASE } from './delivery-leases';
import { WebhookDeliverer } from './webhook-deliverer';
import { WEBHOOK_BOOKKEEPING_DB } from './webhook-bookkeeping';
import { lockAccountsForFanOut } from './endpoint-change-lock';

const BATCH_SIZE = 100;
/**
 * How often the relay looks for undispatched events (one primary-index probe when there are none).
 * Events are not announced with NOTIFY: a NOTIFY in a transaction serialises every such commit in
 * the cluster (PostgreSQL holds one global lock from pre-commit until the commit is flushed), which
 * made all sends of all merchants commit one at a time. Sends in this process wake the relay at once.
 */
const POLL_INTERVAL_MS = 100;

type DeliveryState = 'leased' | 'due' | 'parked';

interface FanOutEndpoint {
  id: string;
  account_id: string;
  events: string[];
  active: boolean;
  url: string;
  /** Sealed (docs/secrets.md). */
  secret: string;
  previous_secret: string | null;
}

interface OutboxRow {
  id: string;
  account_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * The outbox relay. Each committed event becomes one delivery per active, subscribed endpoint of
 * its account, and is marked dispatched in the same transaction; `FOR UPDATE SKIP LOCKED` lets
 * any number of workers share the work without taking one event twice, and the unique
 * (endpoint, event) key makes a repeated fan-out harmless. The deliveries of an active endpoint are
 * created leased to this process's deliverer (attempt 1 under way), as many as it has free
 * connections for, and handed to it after the commit: no claim, no second write before the attempt.
 * The rest are created due and the deliverer is kicked to claim them. If the process dies in
 * between, the sweep of any worker (delivery-sweep.ts) finds the due deliveries, and the expired
 * leases, and sends them.
 */
@Injectable()
export class WebhookRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookRelay.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private rerun = false;
  private stopped = false;

  constructor(
    // The bookkeeping connections: commits that do not wait for the disk (webhook-bookkeeping.ts).
    @Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource,
    private readonly deliverer: WebhookDeliverer,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.timer = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
    this.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Wakes the fan-out if any event waits; the cheap probe keeps an idle relay quiet. */
  private async poll(): Promise<void> {
    if (this.stopped || this.running) return;
    try {
      const [row] = (await this.dataSource.query(
        `SELECT EXISTS (SELECT 1 FROM events WHERE dispatched_at IS NULL) AS waiting`,
      )) as { waiting: boolean }[];
      if (row.waiting) this.wake();
    } catch (error) {
      this.logger.error({ err: error }, 'webhook relay probe failed; retrying on the next poll');
    }
  }

  /** Runs the fan-out now, or once more right after the run in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error }, 'webhook fan-out failed; retrying on the next poll'))
      .finally(() => {
        this.running = null;
        if (this.rerun) {
          this.rerun = false;
          this.wake();
        }
      });
  }

  /** Fans out undispatched events until none is left; returns how many events it took. */
  async drain(): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const taken = await this.dispatchBatch();
      total += taken;
      if (taken < BATCH_SIZE) break;
    }
    return total;
  }

  private async dispatchBatch(): Promise<number> {
    // Connections of this process's deliverer reserved for the deliveries this fan-out leases to it.
    const reserved = new Map<string, number>();
    let leased: ClaimedDelivery[] = [];
    let leasedAt = 0;
    try {
      const { taken, endpointIds, leasedHere } = await this.dataSource.transaction(async (manager) => {
        const events = (await manager.query(
          `SELECT id, account_id, type, data, created_at FROM events
            WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [BATCH_SIZE],
        )) as OutboxRow[];
        if (events.length === 0) return { taken: 0, endpointIds: [] as string[], leasedHere: [] as ClaimedDelivery[] };

        // A pause, resume or delete of one of these accounts' endpoints commits either before the endpoints are
        // read below (and is seen: no delivery for a deleted endpoint, a parked one for a paused endpoint) or
        // after this fan-out commits (a resume then unparks what this fan-out parked): the change takes the
        // same lock exclusively (endpoint-change-lock.ts). Without it, a resume committing in between left
        // parked deliveries on an active endpoint, never sent (docs/webhooks.md, Pausing and 410). The read
        // comes in a later statement than the lock, so its snapshot is taken after any such wait.
        const accountIds = [...new Set(events.map((e) => e.account_id))];
        await lockAccountsForFanOut(manager, accountIds);
        const endpoints = (await manager.query(
          `SELECT id, account_id, events, active, url, secret,
                  CASE WHEN previous_secret_expires_at > clock_timestamp() THEN previous_secret END AS previous_secret
             FROM webhook_endpoints WHERE account_id = ANY($1::text[])`,
          [accountIds],
        )) as FanOutEndpoint[];

        // A paused endpoint gets its deliveries too, parked (no next attempt): it receives nothing while
        // paused and everything once reactivated, so pausing never loses an event. An active endpoint's
        // deliveries are leased to this process's deliverer as they are created, as many as it has free
        // connections for (attempt 1 under way: no claim, no second write before the attempt), the rest due.
        const rows = {
          id: [] as string[],
          endpoint: [] as string[],
          account: [] as string[],
          event: [] as string[],
          type: [] as string[],
          payload: [] as string[],
          state: [] as DeliveryState[],
        };
        const perEndpoint = new Map<string, number>();
        const planned: { endpoint: FanOutEndpoint; event: OutboxRow; payload: string }[] = [];
        for (const event of events) {
          const payload = JSON.stringify({ id: event.id, type: event.type, createdAt: event.created_at.toISOString(), data: event.data });
          for (const endpoint of endpoints) {
            if (endpoint.account_id !== event.account_id) continue;
            if (endpoint.events.length > 0 && !endpoint.events.includes(event.type)) continue;
            planned.push({ endpoint, event, payload });
            if (endpoint.active) perEndpoint.set(endpoint.id, (perEndpoint.get(endpoint.id) ?? 0) + 1);
          }
        }
        for (const [endpointId, count] of perEndpoint) reserved.set(endpointId, this.deliverer.reserve(endpointId, count));
        const leasable = new Map(reserved);
        for (const { endpoint, event, payload } of planned) {
          let state: DeliveryState = 'parked';
          if (endpoint.active) {
            const left = leasable.get(endpoint.id) ?? 0;
            state = left > 0 ? 'leased' : 'due';
            if (left > 0) leasable.set(endpoint.id, left - 1);
          }
          rows.id.push(newId('whd'));
          rows.endpoint.push(endpoint.id);
          rows.account.push(event.account_id);
          rows.event.push(event.id);
          rows.type.push(event.type);
          rows.payload.push(payload);
          rows.state.push(state);
        }
        let created: { id: string; endpoint_id: string; state: DeliveryState }[] = [];
        if (rows.id.length) {
          leasedAt = Date.now();
          created = (await manager.query(
            `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, next_attempt_at, attempts, last_attempt_at, leased_until)
             SELECT u.id, u.endpoint_id, u.account_id, u.event_id, u.event_type, u.payload::json,
                    CASE u.state WHEN 'parked' THEN NULL WHEN 'due' THEN clock_timestamp() ELSE ${DELIVERY_LEASE.endsAt()} END,
                    CASE u.state WHEN 'leased' THEN 1 ELSE 0 END,
                    CASE u.state WHEN 'leased' THEN clock_timestamp() END,
                    CASE u.state WHEN 'leased' THEN ${DELIVERY_LEASE.endsAt()} END
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                    AS u(id, endpoint_id, account_id, event_id, event_type, payload, state)
             ON CONFLICT (endpoint_id, event_id) WHERE replay_id IS NULL DO NOTHING
             RETURNING id, endpoint_id, CASE WHEN leased_until IS NOT NULL THEN 'leased' WHEN next_attempt_at IS NOT NULL THEN 'due' ELSE 'parked' END AS state`,
            [rows.id, rows.endpoint, rows.account, rows.event, rows.type, rows.payload, rows.state],
          )) as { id: string; endpoint_id: string; state: DeliveryState }[];
        }
        await markEventsDispatched(manager, events.map((e) => e.id));
        // Only rows this statement inserted (a repeated fan-out inserts nothing): their ids are ours.
        const byId = new Map(rows.id.map((id, i) => [id, i]));
        const endpointsById = new Map(endpoints.map((e) => [e.id, e]));
        const leasedHere = created
          .filter((row) => row.state === 'leased')
          .map((row) => {
            const i = byId.get(row.id)!;
            const endpoint = endpointsById.get(row.endpoint_id)!;
            return {
              id: row.id,
              attempts: 1,
              event_id: rows.event[i],
              body: rows.payload[i],
              endpoint_id: endpoint.id,
              account_id: endpoint.account_id,
              url: endpoint.url,
              secret: endpoint.secret,
              previous_secret: endpoint.previous_secret,
            };
          });
        return { taken: events.length, leasedHere, endpointIds: [...new Set(created.filter((c) => c.state === 'due').map((c) => c.endpoint_id))] };
      });
      // Only once committed: a fan-out that failed to commit leased nothing.
      leased = leasedHere ?? [];
      for (const endpointId of endpointIds) void this.deliverer.kick(endpointId);
      return taken;
    } finally {
      // After the commit (or the failure: then nothing was leased) the reservations go back with what they leased.
      for (const [endpointId, count] of reserved) {
        this.deliverer.adopt(endpointId, count, leased.filter((d) => d.endpoint_id === endpointId), leasedAt);
      }
    }
  }
}
