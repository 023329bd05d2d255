import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, KeyRing } from '@app/core';
import { AttemptRecord, AttemptRecorder } from './attempt-recorder';
import { ConnectionSlots } from './connection-slots';
import { HttpOutcome, MAX_SOCKETS_PER_ENDPOINT, WEBHOOK_USER_AGENT, WebhookHttpClient } from './webhook-http-client';
import { parseRetryAfter, retryDelayMs } from './retry-schedule';
import { signatureHeader } from './webhook-signer';
import { TargetResult, WebhookTargetGuard } from '../targets/webhook-target-guard';
import { WEBHOOK_BOOKKEEPING_DB } from './webhook-bookkeeping';
import { webhookDeliveryAttempts, webhookDeliveryLag } from './webhook-metrics';
import { openWebhookSecret } from '../webhook-secrets';

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
 * Attempts one process holds at once, over all endpoints: from the claim until the outcome is
 * recorded (not only while the request is under way), so a recorder that falls behind slows the
 * claims down instead of piling up leases.
 */
export const MAX_IN_FLIGHT = 2048;
/**
 * While some of its attempts are held, an endpoint claims more only once it may hold this many more,
 * so claims stay batches rather than one delivery at a time.
 */
const REFILL_AT = Math.max(1, Math.floor(MAX_SOCKETS_PER_ENDPOINT / 4));
/**
 * Attempts one endpoint's deliveries may hold in this process at once, leased by the relay or
 * claimed, counting those under way: twice its connections, so a fan-out of a burst of events
 * leases them all (no later claim, no second write before the attempt) and the ones past the
 * connection limit wait here, leased, for a connection to free up (milliseconds: an attempt takes
 * tens of them).
 */
const MAX_LEASED_PER_ENDPOINT = 2 * MAX_SOCKETS_PER_ENDPOINT;
/** Opened signing secrets kept by one process (see openSecret). */
const OPENED_SECRETS_MAX = 1_000;

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

interface EndpointState {
  id: string;
  /** Attempts of this endpoint held (claimed or leased by the relay, and not yet answered), sending or waiting for a connection. */
  inFlight: number;
  /** The endpoint's connections: MAX_SOCKETS_PER_ENDPOINT attempts send at once, the others wait their turn. */
  connections: ConnectionSlots;
  /** Due deliveries may be waiting: claim again. */
  wanted: boolean;
  running: Promise<void> | null;
}

/**
 * Sends the due deliveries of an endpoint: claims them in batches, oldest first (one UPDATE … SKIP
 * LOCKED leases up to what the endpoint may hold, MAX_LEASED_PER_ENDPOINT; attempts past its
 * connections wait, leased and renewed, for one to free up), checks the target once per batch, POSTs each signed body over the
 * endpoint's kept-alive connections, and hands the outcomes to the recorder, which writes them in
 * groups. Fresh deliveries mostly come from the relay already leased (`reserve`, then `adopt`
 * after its commit), without a claim. `kick` is called by the relay after a fan-out commits, by the sweep, and by the queue
 * processor (retries, pings, manual retries, reactivation); each endpoint has at most one claiming
 * loop per process, and any number of processes can share an endpoint (SKIP LOCKED, lease).
 * Deliveries of one endpoint are not sent in order (docs/webhooks.md, Delivery).
 */
@Injectable()
export class WebhookDeliverer implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliverer.name);
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly sending = new Set<Promise<void>>();
  /**
   * The leases this process holds, from the claim until the outcome is recorded: delivery id → the
   * attempt it claimed, and when the lease was taken or last renewed (this process's clock, read
   * before the statement was sent, so never later than the database's).
   */
  private readonly held = new Map<string, { attempt: number; leasedAt: number }>();
  private heartbeat: NodeJS.Timeout | null = null;
  private slotWaiters: (() => void)[] = [];
  private stopping = false;
  private renewing = false;
  /** Attempts reserved by the relay for the deliveries it is creating (see reserve). */
  private reserved = 0;
  private readonly openedSecrets = new Map<string, string>();

  constructor(
    // The bookkeeping connections: commits that do not wait for the disk (webhook-bookkeeping.ts).
    @Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource,
    private readonly guard: WebhookTargetGuard,
    private readonly http: WebhookHttpClient,
    private readonly recorder: AttemptRecorder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keyRing: KeyRing,
  ) {}

  onModuleInit(): void {
    this.heartbeat = setInterval(() => void this.renewLeases(), HEARTBEAT_MS);
    this.heartbeat.unref();
    // A success after failures brought the endpoint's backlog forward: send it now, at its connection limit.
    this.recorder.onBroughtForward = (endpointId) => void this.kick(endpointId);
  }

  /**
   * Stops claiming, then waits for the attempts under way to be answered and recorded (their
   * leases renewed meanwhile). Runs before the queues and the database close (their shutdown hooks
   * come after this phase).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wakeWaiters();
    await Promise.all([...this.endpoints.values()].map((s) => s.running));
    await Promise.all([...this.sending]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /**
   * The heartbeat: moves on the leases this process has held for LEASE_RENEW_AFTER_MS or more. Only
   * while the delivery is still at the claimed attempt and leased (not yet recorded), so a renewal
   * never takes back a delivery that another worker took over after a missed renewal, nor delays a
   * retry. A failed renewal is only logged: the attempt goes on, and at worst is sent twice (at least once).
   */
  private async renewLeases(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    const now = Date.now();
    const old = [...this.held].filter(([, lease]) => now - lease.leasedAt >= LEASE_RENEW_AFTER_MS);
    if (old.length === 0) return;
    this.renewing = true;
    try {
      const [rows] = (await this.dataSource.query(
        `WITH u AS (SELECT * FROM unnest($1::text[], $2::int[]) AS u(id, attempt)),
         mine AS (
           -- A row locked now is being recorded (its lease is ending anyway): skipped, so a renewal never waits
           -- on, or deadlocks with, the recorder's write of the same rows in another order.
           SELECT d.id FROM u JOIN webhook_deliveries d ON d.id = u.id AND d.attempts = u.attempt
            WHERE d.status = 'PENDING' AND d.leased_until IS NOT NULL
              FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE webhook_deliveries d
            SET next_attempt_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000),
                leased_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
           FROM mine
          WHERE d.id = mine.id
        RETURNING d.id`,
        [old.map(([id]) => id), old.map(([, lease]) => lease.attempt), DELIVERY_LEASE_MS],
      )) as [{ id: string }[], number];
      for (const { id } of rows) {
        const lease = this.held.get(id);
        if (lease) lease.leasedAt = now;
      }
    } catch (error) {
      this.logger.warn({ err: error, count: old.length }, 'renewing webhook delivery leases failed; retrying on the next beat');
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Sends the endpoint's due deliveries now (or has the loop already running for it claim once
   * more). Resolves when the loop has claimed all it found, not when those attempts are answered.
   */
  kick(endpointId: string): Promise<void> {
    if (this.stopping) return Promise.resolve();
    const state = this.stateOf(endpointId);
    state.wanted = true;
    if (!state.running) {
      const current = state;
      let failed = false;
      current.running = this.claimLoop(current)
        .catch((error: unknown) => {
          failed = true;
          this.logger.error({ err: error, endpointId }, 'claiming webhook deliveries failed; the sweep will retry');
        })
        .finally(() => {
          current.running = null;
          // A kick that came after the last claim (not after a failure: the sweep retries those, not a tight loop).
          if (current.wanted && !failed && !this.stopping) void this.kick(endpointId);
          else this.forgetIfIdle(current);
        });
    }
    return state.running!;
  }

  private stateOf(endpointId: string): EndpointState {
    let state = this.endpoints.get(endpointId);
    if (!state) {
      state = { id: endpointId, inFlight: 0, connections: new ConnectionSlots(MAX_SOCKETS_PER_ENDPOINT), wanted: false, running: null };
      this.endpoints.set(endpointId, state);
    }
    return state;
  }

  /**
   * For the relay, which leases fresh deliveries to this process as it creates them (no claim
   * needed): takes up to `wanted` of the endpoint's free connections (and of the process's attempts),
   * and answers how many. Every reservation is handed back through `adopt`, whether the fan-out
   * committed or not.
   */
  reserve(endpointId: string, wanted: number): number {
    if (this.stopping || wanted <= 0) return 0;
    const state = this.stateOf(endpointId);
    // While the endpoint's claim loop runs, due deliveries may be waiting in the table: fresh ones queue
    // behind them (created due, claimed oldest first) rather than going out ahead of them.
    if (state.running) return 0;
    const free = Math.min(MAX_LEASED_PER_ENDPOINT - state.inFlight, MAX_IN_FLIGHT - this.held.size - this.reserved);
    const taken = Math.max(0, Math.min(wanted, free));
    state.inFlight += taken;
    this.reserved += taken;
    return taken;
  }

  /**
   * After the fan-out: sends the deliveries it created leased to this process (`leasedAt`: taken
   * before its statement was sent), and frees what of the reservation they did not use. When the
   * process is stopping they are left to their leases, which run out, and a sweep sends them again.
   */
  adopt(endpointId: string, reserved: number, leased: ClaimedDelivery[], leasedAt: number): void {
    const state = this.stateOf(endpointId);
    state.inFlight -= reserved;
    this.reserved -= reserved;
    if (leased.length && !this.stopping) this.startBatch(state, leased, leasedAt);
    this.wakeWaiters();
    this.forgetIfIdle(state);
  }

  private async claimLoop(state: EndpointState): Promise<void> {
    while (state.wanted && !this.stopping) {
      const free = Math.min(MAX_LEASED_PER_ENDPOINT - state.inFlight, MAX_IN_FLIGHT - this.held.size - this.reserved);
      if (free <= 0 || (free < REFILL_AT && state.inFlight > 0)) {
        await this.slotFreed();
        continue;
      }
      state.wanted = false;
      const claimedAt = Date.now();
      const { sendable, found } = await this.claim(state.id, free);
      // A full batch: more may be due. (A kick during the claim has set `wanted` too.)
      if (found === free) state.wanted = true;
      if (sendable.length) this.startBatch(state, sendable, claimedAt);
    }
  }

  /**
   * Leases up to `limit` due deliveries of the endpoint for one attempt each: attempts + 1, and
   * next_attempt_at (with leased_until, which marks it as a lease, not a back-off) moved
   * DELIVERY_LEASE_MS ahead, so no other worker (nor a duplicate job, nor the sweep) sends them
   * meanwhile; the heartbeat keeps moving it while the attempt is alive. A paused (or deleted)
   * endpoint gets nothing: its deliveries wait, untouched, for it to be reactivated. Public for
   * tests that play a worker dying between its claim and its attempts (a claim alone is never renewed).
   *
   * The endpoint's row is only read, in the same statement (one snapshot) as the deliveries: no lock.
   * A pause that commits after that snapshot can only meet deliveries committed before it, i.e. of
   * events from before the pause, which may still go out; a resume that commits after it is followed
   * by its own job, which claims again (docs/webhooks.md, Pausing and 410).
   */
  async claim(endpointId: string, limit: number): Promise<{ sendable: ClaimedDelivery[]; found: number }> {
    const [rows] = (await this.dataSource.query(
      `WITH e AS MATERIALIZED (
         SELECT id, account_id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints WHERE id = $1 AND active
       )
       UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1,
              last_attempt_at = clock_timestamp(),
              next_attempt_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000),
              leased_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
         FROM e
        WHERE d.id IN (
                SELECT id FROM webhook_deliveries
                 WHERE endpoint_id = (SELECT id FROM e) AND status = 'PENDING' AND next_attempt_at <= now() + interval '1 second'
                 ORDER BY next_attempt_at
                 LIMIT $2
                   FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d.attempts, d.event_id, d.payload::text AS body, e.id AS endpoint_id, e.account_id, e.url, e.secret,
                CASE WHEN e.previous_secret_expires_at > clock_timestamp() THEN e.previous_secret END AS previous_secret`,
      [endpointId, limit, DELIVERY_LEASE_MS],
    )) as [ClaimedDelivery[], number];
    return { sendable: rows, found: rows.length };
  }

  private startBatch(state: EndpointState, batch: ClaimedDelivery[], claimedAt: number): void {
    state.inFlight += batch.length;
    // Checked again at every attempt (once per batch: they share the URL): the name may resolve elsewhere now than at creation.
    const checkedAt = Date.now();
    const target = this.guard.resolve(batch[0].url).catch((error: unknown): TargetResult => ({ ok: false, reason: (error as Error).message }));
    for (const delivery of batch) {
      this.held.set(delivery.id, { attempt: delivery.attempts, leasedAt: claimedAt });
      const attempt = this.attempt(state, delivery, target, checkedAt).finally(() => {
        this.held.delete(delivery.id);
        this.wakeWaiters();
      });
      this.sending.add(attempt);
      void attempt.finally(() => this.sending.delete(attempt));
    }
  }

  private async attempt(state: EndpointState, delivery: ClaimedDelivery, target: Promise<TargetResult>, checkedAt: number): Promise<void> {
    await state.connections.acquire();
    const started = new Date();
    let outcome: HttpOutcome;
    try {
      outcome = await this.send(delivery, await target, checkedAt);
    } catch (error) {
      outcome = { status: null, error: (error as Error).message.slice(0, 300), retryAfter: undefined, durationMs: Date.now() - checkedAt };
    } finally {
      state.connections.release();
      state.inFlight -= 1;
      this.wakeWaiters();
    }
    this.forgetIfIdle(state);
    const record = this.decide(delivery, started, outcome);
    countAttempt(record, delivery.body);
    await this.recorder.record(record);
  }

  private async send(delivery: ClaimedDelivery, target: TargetResult, checkedAt: number): Promise<HttpOutcome> {
    if (!target.ok) return { status: null, error: `refused before connecting: ${target.reason}`, retryAfter: undefined, durationMs: Date.now() - checkedAt };
    const timestamp = Math.floor(Date.now() / 1000);
    const endpoint = { id: delivery.endpoint_id, accountId: delivery.account_id };
    const sealed = delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
    const secrets = sealed.map((secret) => this.openSecret(endpoint, secret));
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Webhook-Id': delivery.event_id,
      'X-Webhook-Timestamp': String(timestamp),
      'X-Webhook-Signature': signatureHeader(secrets, timestamp, delivery.body),
    };
    return this.http.post(target.target, headers, Buffer.from(delivery.body, 'utf8'), this.config.webhookTimeoutMs, delivery.endpoint_id);
  }

  /**
   * The secret in clear, opened once per sealed value rather than once per attempt (an AES-GCM
   * decryption each). Keyed by the sealed text with its endpoint, so a rotation (a new sealed value) is
   * opened afresh; the cache is emptied when it grows past OPENED_SECRETS_MAX.
   */
  private openSecret(endpoint: { id: string; accountId: string }, sealed: string): string {
    const key = `${endpoint.id} ${endpoint.accountId} ${sealed}`;
    let opened = this.openedSecrets.get(key);
    if (opened === undefined) {
      opened = openWebhookSecret(this.keyRing, endpoint, sealed);
      if (this.openedSecrets.size >= OPENED_SECRETS_MAX) this.openedSecrets.clear();
      this.openedSecrets.set(key, opened);
    }
    return opened;
  }

  /** What the outcome means for the delivery: done, retried later (backoff, Retry-After), failed for good, or parked (410). */
  private decide(delivery: ClaimedDelivery, started: Date, outcome: HttpOutcome): AttemptRecord {
    const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const gone = outcome.status === 410;
    let status: AttemptRecord['status'] = 'PENDING';
    let nextAttemptAt: Date | null = null;
    let retryNotBefore: Date | null = null;
    if (succeeded) status = 'SUCCEEDED';
    else if (gone) status = 'PENDING'; // parked with the paused endpoint; resumes when it is reactivated
    else if (delivery.attempts >= this.config.webhookMaxAttempts) status = 'FAILED';
    else {
      let delay = retryDelayMs(delivery.attempts, this.config.webhookRetryBaseMs);
      if (outcome.status === 429 || outcome.status === 503) {
        const asked = parseRetryAfter(outcome.retryAfter);
        if (asked !== null) {
          delay = Math.max(delay, asked);
          retryNotBefore = new Date(Date.now() + asked);
        }
      }
      nextAttemptAt = new Date(Date.now() + delay);
    }
    return {
      deliveryId: delivery.id,
      endpointId: delivery.endpoint_id,
      attempt: delivery.attempts,
      startedAt: started,
      durationMs: outcome.durationMs,
      succeeded,
      responseStatus: outcome.status,
      error: outcome.error ?? (succeeded ? null : describeStatus(outcome.status!)),
      status,
      nextAttemptAt,
      retryNotBefore,
      gone,
    };
  }

  private slotFreed(): Promise<void> {
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  private wakeWaiters(): void {
    const waiters = this.slotWaiters;
    this.slotWaiters = [];
    waiters.forEach((wake) => wake());
  }

  private forgetIfIdle(state: EndpointState): void {
    if (!state.running && state.inFlight === 0 && this.endpoints.get(state.id) === state) this.endpoints.delete(state.id);
  }
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  if (status === 410) return 'HTTP 410 Gone: endpoint paused';
  return `HTTP ${status}`;
}

/** Attempt outcomes, and for a success how long after the event it arrived (the payload says when the event happened). */
function countAttempt(record: AttemptRecord, body: string): void {
  const outcome = record.succeeded ? 'succeeded' : record.gone ? 'parked' : record.status === 'FAILED' ? 'failed' : 'retrying';
  webhookDeliveryAttempts.inc({ outcome });
  if (!record.succeeded) return;
  const createdAt = Date.parse(/"createdAt":"([^"]+)"/.exec(body)?.[1] ?? '');
  if (Number.isFinite(createdAt)) webhookDeliveryLag.observe(Math.max(0, (Date.now() - createdAt) / 1000));
}
