import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeliveryScheduler } from './delivery-scheduler';
import { DELIVERY_LEASE } from './delivery-leases';
import { WEBHOOK_BOOKKEEPING_DB } from './webhook-bookkeeping';

/** The result of one attempt and what comes next for its delivery. */
export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  succeeded: boolean;
  responseStatus: number | null;
  error: string | null;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  /** When the next attempt is due (a retry); null when none is (finished, or parked). */
  nextAttemptAt: Date | null;
  /** The earliest retry the receiver asked for (Retry-After on a 429 or 503); null when it asked nothing. */
  retryNotBefore: Date | null;
  /** The receiver answered 410: the endpoint is paused. */
  gone: boolean;
}

/** Most attempts written by one statement. */
const MAX_RECORD_BATCH = 500;
export const GONE_REASON = 'The receiver answered 410 Gone; reactivate the endpoint to resume deliveries.';

/**
 * What the recorder calls with an endpoint whose backed-off deliveries it has just made due (a
 * recovery, see bringForward): the deliverer sends them now, at the endpoint's connection limit.
 */
export const BACKLOG_DUE = Symbol('BACKLOG_DUE');
export type BacklogDue = (endpointId: string) => void;

/**
 * Writes finished attempts in groups: the attempts that finish while a write is under way are
 * written together by the next one, in a single statement (attempt rows, delivery state, and the
 * pause of endpoints that answered 410). Then it enqueues the retries. A group that fails to write
 * is written again one attempt at a time, so one bad row (say, its endpoint was deleted meanwhile)
 * does not lose the others; an attempt that still cannot be written keeps its lease and is tried
 * again when the lease ends.
 *
 * It also keeps each endpoint's failing_since: set when an attempt to it is to be retried, and
 * cleared by a success, which then brings the endpoint's backed-off deliveries forward (see
 * bringForward) so a receiver that recovers gets its backlog within seconds, not after each
 * delivery's own back-off.
 */
@Injectable()
export class AttemptRecorder {
  private readonly logger = new Logger(AttemptRecorder.name);
  private buffer: { record: AttemptRecord; done: () => void }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    // The bookkeeping connections: commits that do not wait for the disk (webhook-bookkeeping.ts).
    @Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource,
    private readonly scheduler: DeliveryScheduler,
    @Inject(BACKLOG_DUE) private readonly backlogDue: BacklogDue,
  ) {}

  /** Resolves once the attempt is written (or could not be) and its retry, if any, is enqueued. Never rejects. */
  record(record: AttemptRecord): Promise<void> {
    return new Promise((done) => {
      this.buffer.push({ record, done });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Let the attempts finishing in this turn of the event loop join the first group.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.buffer.length) {
      const group = this.buffer.splice(0, MAX_RECORD_BATCH);
      const written = await this.writeGroup(group.map((g) => g.record));
      // The next group is written while this one's retries are enqueued.
      void this.afterWrite(written)
        .catch((error: unknown) => this.logger.error({ err: error }, 'enqueueing webhook retries failed; the sweep will retry'))
        .finally(() => group.forEach((g) => g.done()));
    }
    this.flushing = null;
  }

  private async writeGroup(records: AttemptRecord[]): Promise<AttemptRecord[]> {
    try {
      await this.write(records);
      return records;
    } catch (error) {
      if (records.length === 1) {
        this.logger.error({ err: error, deliveryId: records[0].deliveryId }, 'recording a webhook attempt failed; it is retried after its lease');
        return [];
      }
      this.logger.warn({ err: error, count: records.length }, 'recording a group of webhook attempts failed; writing them one by one');
      const written: AttemptRecord[] = [];
      for (const record of records) for (const one of await this.writeGroup([record])) written.push(one);
      return written;
    }
  }

  private async write(records: AttemptRecord[]): Promise<void> {
    const { text, params } = this.writeStatement(records);
    await this.dataSource.query(text, params);
  }

  /**
   * The one statement that records a group of attempts: the failed ones' attempt rows, each
   * delivery's new state (ending its lease), the failing flag of the endpoints to retry and the pause
   * of those that answered 410.
   */
  writeStatement(records: AttemptRecord[]): { text: string; params: unknown[] } {
    const gone = [...new Set(records.filter((r) => r.gone).map((r) => r.endpointId))];
    // Not the paused ones: one statement must not update an endpoint row twice.
    const failing = [...new Set(records.filter((r) => r.nextAttemptAt && !gone.includes(r.endpointId)).map((r) => r.endpointId))];
    return {
      text: `WITH u AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::boolean[], $6::int[], $7::text[], $8::text[], $9::timestamptz[], $12::timestamptz[])
           AS u(delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error, status, next_attempt_at, retry_not_before)
       ), attempts AS (
         -- A failed attempt gets a row of its own; a success is kept on its delivery row (below), which it finishes.
         -- The endpoint (and its deliveries) may have been deleted during the attempt: then there is nothing to record.
         INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error)
         SELECT u.delivery_id, u.attempt, u.started_at, u.duration_ms, u.succeeded, u.response_status, u.error FROM u
          WHERE NOT u.succeeded AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = u.delivery_id)
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       ), deliveries AS (
         -- Only while the delivery is still at this attempt (a later claim, after the lease ran out, owns it otherwise).
         -- The lease ends here: from now on next_attempt_at is a back-off, which a recovery may bring forward.
         UPDATE webhook_deliveries d
            SET status = u.status, response_status = u.response_status, last_error = u.error, next_attempt_at = u.next_attempt_at,
                ${DELIVERY_LEASE.end}, retry_not_before = u.retry_not_before, last_attempt_at = u.started_at,
                last_attempt_duration_ms = CASE WHEN u.succeeded THEN u.duration_ms END
           FROM u
          WHERE d.id = u.delivery_id AND ${DELIVERY_LEASE.atAttempt('d', 'u.attempt')}
       ), failing AS (
         -- Every such row is updated (not only those whose flag this statement's snapshot shows unset), so the update
         -- waits for a recovery that holds the row and then sets the flag it has just cleared (see bringForward).
         UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, clock_timestamp()) WHERE id = ANY($13::text[])
       )
       UPDATE webhook_endpoints SET active = false, paused_reason = $11, updated_at = clock_timestamp() WHERE id = ANY($10::text[])`,
      params: [
        records.map((r) => r.deliveryId),
        records.map((r) => r.attempt),
        records.map((r) => r.startedAt),
        records.map((r) => r.durationMs),
        records.map((r) => r.succeeded),
        records.map((r) => r.responseStatus),
        records.map((r) => r.error),
        records.map((r) => r.status),
        records.map((r) => r.nextAttemptAt),
        gone,
        GONE_REASON,
        records.map((r) => r.retryNotBefore),
        failing,
      ],
    };
  }

  /**
   * The endpoints of these successes that were failing are failing no more: their backed-off
   * deliveries become due now (never before a Retry-After the receiver asked for), and the
   * deliverer sends them at the endpoint's connection limit. Deliveries with an attempt under way
   * (leased) and those parked by a 410 (no next attempt) are left alone, and so are paused endpoints.
   */
  private async bringForward(endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    // The common case, a healthy endpoint, costs one read. A failure committing after it sets the flag, which the
    // next success finds.
    const flagged = (await this.dataSource.query(`SELECT id FROM webhook_endpoints WHERE id = ANY($1::text[]) AND failing_since IS NOT NULL`, [
      endpointIds,
    ])) as { id: string }[];
    if (flagged.length === 0) return;
    // Two statements in one transaction, not one statement: the clear may wait for a failure being recorded on the
    // endpoint, and a single statement would then bring forward only what its snapshot, taken before that failure
    // committed, showed; the failure's back-off would be left behind with the flag already cleared, and no later
    // success would bring it forward. The second statement's snapshot is taken after the clear, so it sees every
    // failure recorded before it; one recorded after the clear waits for this commit and sets the flag again.
    const brought = await this.dataSource.transaction(async (manager) => {
      const recovered = (await manager.query(
        `UPDATE webhook_endpoints SET failing_since = NULL
          WHERE id = ANY($1::text[]) AND failing_since IS NOT NULL AND active
          RETURNING id`,
        [flagged.map((row) => row.id)],
      )) as [{ id: string }[], number];
      const ids = recovered[0].map((row) => row.id);
      if (ids.length === 0) return [] as { endpoint_id: string }[];
      const [rows] = (await manager.query(
        `UPDATE webhook_deliveries d
            SET next_attempt_at = GREATEST(clock_timestamp(), COALESCE(d.retry_not_before, '-infinity'))
          WHERE d.id IN (
                  -- SKIP LOCKED: a row locked now is being claimed or recorded, so it is not waiting for a back-off.
                  SELECT id FROM webhook_deliveries
                   WHERE endpoint_id = ANY($1::text[]) AND status = 'PENDING' AND leased_until IS NULL
                     AND next_attempt_at > clock_timestamp()
                     AND (retry_not_before IS NULL OR retry_not_before < next_attempt_at)
                     FOR UPDATE SKIP LOCKED)
         RETURNING d.endpoint_id`,
        [ids],
      )) as [{ endpoint_id: string }[], number];
      return rows;
    });
    const endpoints = [...new Set(brought.map((row) => row.endpoint_id))];
    for (const endpointId of endpoints) {
      this.logger.log({ endpointId, deliveries: brought.filter((row) => row.endpoint_id === endpointId).length }, 'webhook endpoint recovered; backlog brought forward');
      this.backlogDue(endpointId);
    }
  }

  private async afterWrite(written: AttemptRecord[]): Promise<void> {
    for (const endpointId of new Set(written.filter((r) => r.gone).map((r) => r.endpointId))) {
      this.logger.warn({ endpointId }, 'receiver answered 410; endpoint paused');
    }
    await this.bringForward([...new Set(written.filter((r) => r.succeeded).map((r) => r.endpointId))]).catch((error: unknown) =>
      // The backlog then waits for its own back-off, as it would have anyway; the next success tries again.
      this.logger.warn({ err: error }, 'bringing a recovered endpoint\'s backlog forward failed'),
    );
    await Promise.all(
      written
        .filter((r) => r.nextAttemptAt)
        .map((r) => this.scheduler.enqueue(r.endpointId, r.deliveryId, r.attempt + 1, r.nextAttemptAt!.getTime() - Date.now())),
    );
  }
}
