import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge } from 'prom-client';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import { Clock } from '../clock/clock';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { metricsRegistry } from '../metrics/metrics';
import { RedisClient } from '../redis/redis.module';
import { RUNTIME_ROLE } from './database-roles';
import { inOpenTransaction, readSnapshot, SNAPSHOT_SETTINGS } from './read-snapshot';

/**
 * Reads that may be served by a streaming replica (docs/scaling.md, Read replica): list pages,
 * reports, statements, the Overview chart and the events list. Everything else, and every write,
 * stays on the primary.
 *
 * - **Lag.** Each process samples the primary's WAL position and the replica's replay position every
 *   second. The replica's lag is how long ago the primary had written the oldest WAL the replica has
 *   not replayed yet (0 when it has replayed all it was sampled at). Past READ_REPLICA_MAX_LAG_MS,
 *   or when the replica does not answer, reads go to the primary until a sample says otherwise.
 * - **Read your writes.** After a request that may have written, the credential's position on the
 *   primary is kept in Redis for a minute. A read by that credential waits up to READ_REPLICA_WAIT_MS
 *   for the replica to have replayed it, asking on the server session the read then uses (several
 *   replicas behind one address, or behind one pooler, may differ), else reads the primary. Without
 *   Redis, or when the position could not be kept, such reads go to the primary.
 * - **A replica that fails mid-read** (killed, restarted, a query cancelled by recovery): the read is
 *   run again on the primary, and a report carries on there from the batch it was at.
 * - **Behind a pooler** a replica that stops leaves statements unanswered rather than refused: a read
 *   waits SESSION_WAIT_MS for its first answers, and a connection with a statement left unanswered is
 *   closed, never reused.
 */

export type ReplicaState = 'ok' | 'lagging' | 'down';
export type ReadTarget = 'replica' | 'primary';
/** Why a read went where it did (the `reason` label of `database_reads_total`). */
type RouteReason = 'replica' | 'lagging' | 'down' | 'not_replayed' | 'no_write_record' | 'failed_over' | 'busy';

/** Who is reading, for read-your-writes: the credential of the request (set by the auth layer around a handler). */
export const readContext = new AsyncLocalStorage<{ writer: string }>();

/** Between two lag samples. */
export const REPLICA_CHECK_INTERVAL_MS = 1_000;
/** How often a read waiting for its credential's last write asks the replica again. */
const CATCH_UP_POLL_MS = 5;
/** A check that the replica has not answered in this long finds it down. */
const CHECK_TIMEOUT_MS = 5_000;
/**
 * A replica read that has no session on the replica in this long goes to the primary (busy, not down): no connection
 * of the pool free, or, behind a pooler, no answer to a statement sent before its transaction has a server session
 * (the pooler holds it until one frees, or while the replica is unreachable, for as long as its query_wait_timeout).
 */
const SESSION_WAIT_MS = 2_000;
/** Primary positions kept while the replica has not replayed them; past it, the middle ones go (the oldest stays: it is the lag). */
const MAX_SAMPLES = 600;

/** The replica's gauges: registered only with DATABASE_READ_URL, so a deployment without a replica shows none. */
function replicaGauges(): { up: Gauge; lag: Gauge } {
  const existing = (name: string) => metricsRegistry.getSingleMetric(name) as Gauge | undefined;
  return {
    up:
      existing('database_read_replica_up') ??
      new Gauge({
        name: 'database_read_replica_up',
        help: 'Whether reads may go to the read replica: 1 when it answers within READ_REPLICA_MAX_LAG_MS of the primary, 0 when it is down or lagging.',
        registers: [metricsRegistry],
      }),
    lag:
      existing('database_read_replica_lag_seconds') ??
      new Gauge({
        name: 'database_read_replica_lag_seconds',
        help: 'How far the read replica is behind the primary at the last check (NaN while it does not answer).',
        registers: [metricsRegistry],
      }),
  };
}

export const databaseReads = new Counter({
  name: 'database_reads_total',
  help: 'Replica-eligible reads (lists, reports, statements, chart, events) by where they ran and why.',
  labelNames: ['target', 'reason'] as const,
  registers: [metricsRegistry],
});

/** A pg_lsn ('16/B374D848') as a number that orders as the positions do. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** An LSN as 16 hex digits: Redis compares these as strings in the order of the positions. */
function lsnKey(value: bigint): string {
  return value.toString(16).padStart(16, '0');
}

/**
 * Whether an error from the replica is the replica's (connection lost or refused, server shutting
 * down or starting, a query cancelled by recovery) rather than the read's own: only those are read
 * again from the primary.
 */
export function replicaFault(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') {
    if (/^(08|57P|53)/.test(code) || code === '40001' || code === '40P01') return true;
    if (/^E(CONN|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|AI_AGAIN)/.test(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Query read timeout|Client has encountered a connection error|Connection is closed|Cannot use a pool after calling end/i.test(
    message,
  );
}

/** A statement sent before a replica read's transaction had no answer within SESSION_WAIT_MS. */
class NoReplicaSession extends Error {}

/**
 * A replica fault in which the server never answered (no SQLSTATE: a read timeout, a broken socket), as
 * opposed to one it answered with an error (a recovery conflict, a shutdown), after which a ROLLBACK on the
 * connection is answered at once. Every such fault is also a `replicaFault`, so its connection is closed.
 */
function unanswered(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // SQLSTATEs are five digits or capitals, none of class E; E… five-letter codes are the system's (EPIPE).
  return replicaFault(error) && !(typeof code === 'string' && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code));
}

/** No connection of the replica's pool, or no session behind its pooler, came free in time: the replica is busy, not gone. The read goes to the primary. */
function poolBusy(error: unknown): boolean {
  return error instanceof NoReplicaSession || (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message));
}

/** A replica fault that says nothing about its health: the query lost to recovery, the next one may not. */
function recoveryConflict(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '40001' || code === '40P01';
}

/** Runs a read on one database: the primary, or the replica with a fall back to the primary. */
export type Reader = <T>(work: (manager: EntityManager) => Promise<T>) => Promise<T>;

/** Where a replica read went: its result, or why it did not run there. */
type ReplicaOutcome<T> = { ran: true; value: T } | { ran: false; reason: RouteReason };

@Injectable()
export class ReadRouting implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(ReadRouting.name);
  private readonly gauges: { up: Gauge; lag: Gauge } | null;
  private replica: DataSource | null = null;
  private state: ReplicaState = 'down';
  private lagMs: number | null = null;
  /** Primary positions sampled and not yet replayed, oldest first, with when they were sampled. */
  private unreplayed: { at: number; lsn: bigint }[] = [];
  /** Credentials whose last write position could not be kept, until when (performance.now()): their reads go to the primary. */
  private readonly unrecorded = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisClient,
    private readonly clock: Clock,
  ) {
    this.gauges = this.replicated ? replicaGauges() : null;
  }

  /** Whether DATABASE_READ_URL is set. */
  get replicated(): boolean {
    return this.config.databaseReadUrl !== null;
  }

  onModuleInit(): void {
    if (!this.replicated) return;
    // Not awaited: the start never waits on the replica; reads go to the primary until a check finds it serving.
    void this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** No more checks; the pool stays for the requests still being answered while the HTTP server drains. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.checking;
  }

  async onApplicationShutdown(): Promise<void> {
    const replica = this.replica;
    this.replica = null;
    await replica?.destroy().catch(() => undefined);
  }

  /** For /health/ready: null without a replica. */
  health(): { status: ReplicaState; lagMs: number | null } | null {
    return this.replicated ? { status: this.state, lagMs: this.lagMs } : null;
  }

  /**
   * Samples both positions and sets the replica's state (every REPLICA_CHECK_INTERVAL_MS; tests call
   * it after moving the clock). One check at a time.
   */
  check(): Promise<void> {
    this.checking ??= this.sample().finally(() => (this.checking = null));
    return this.checking;
  }

  /** `work` in one read-only snapshot (readSnapshot's) on the replica when it may serve this read, else on the primary. */
  snapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.route('REPEATABLE READ', work, () => readSnapshot(this.primary, work));
  }

  /** `work` as plain statements (each its own snapshot) on the replica when it may serve this read, else on the primary. */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.route('READ COMMITTED', work, () => work(this.primary.manager));
  }

  /**
   * A reader for a long read in many statements (a report): it reads what the primary had committed
   * when it was made, each batch from the replica while the replica serves and has replayed that much
   * (asked on the batch's own connection), and from the primary once the replica fails or falls behind
   * (it does not go back to the replica).
   */
  async reader(): Promise<Reader> {
    const since = this.replicated ? await this.primaryPosition().catch(() => null) : null;
    /** Set once the reads have moved to the primary, with why. */
    let onPrimary: RouteReason | null = since === null ? 'down' : null;
    return async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
      const replica = this.replica;
      if (onPrimary === null) {
        if (!replica || this.state !== 'ok') onPrimary = this.state === 'ok' ? 'down' : this.state;
        else {
          const outcome = await this.onReplica(replica, since, 'READ COMMITTED', work);
          if (outcome.ran) return outcome.value;
          onPrimary = outcome.reason;
        }
      }
      if (this.replicated) databaseReads.inc({ target: 'primary', reason: onPrimary });
      return work(this.primary.manager);
    };
  }

  /**
   * Called after a request by `writer` that may have written (any method but GET, HEAD and OPTIONS):
   * keeps the primary's current position as that credential's, for a minute, so its next reads see its
   * writes. Never lowers a position another process kept meanwhile. When it cannot be kept, this
   * process sends the credential's reads to the primary for as long.
   */
  async noteWrite(writer: string): Promise<void> {
    if (!this.replicated) return;
    try {
      const lsn = await this.primaryPosition();
      await this.redis.eval(
        `local kept = redis.call('GET', KEYS[1]) if not kept or kept < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 1`,
        1,
        this.writeKey(writer),
        lsnKey(lsn),
        String(this.writeMemoryMs()),
      );
    } catch (error) {
      this.logger.warn({ err: error }, "could not keep a credential's last write position; its reads go to the primary");
      const now = performance.now();
      if (this.unrecorded.size > 10_000) for (const [key, until] of this.unrecorded) if (until <= now) this.unrecorded.delete(key);
      this.unrecorded.set(writer, now + this.writeMemoryMs());
    }
  }

  private async route<T>(isolation: Isolation, work: (manager: EntityManager) => Promise<T>, onPrimary: () => Promise<T>): Promise<T> {
    const replica = this.replica;
    if (!replica || this.state !== 'ok') {
      if (this.replicated) databaseReads.inc({ target: 'primary', reason: this.state === 'ok' ? 'down' : this.state });
      return onPrimary();
    }
    const needed = await this.writerPosition();
    const outcome = 'reason' in needed ? ({ ran: false, reason: needed.reason } as const) : await this.onReplica(replica, needed.lsn, isolation, work);
    if (outcome.ran) return outcome.value;
    databaseReads.inc({ target: 'primary', reason: outcome.reason });
    return onPrimary();
  }

  /**
   * `work` on one connection of the replica, in a read-only transaction with the serving sessions'
   * settings, opened (when `needed`) on a session that has replayed that position (openReplayed). A
   * fault of the replica or no replica session within SESSION_WAIT_MS is an outcome (the caller reads
   * the primary), and the connection is closed rather than given back (releaseReplica); any other
   * error is the read's own and is thrown, the connection closed too when the error came before the
   * read's transaction was open (it may have left one open or aborted there).
   */
  private async onReplica<T>(replica: DataSource, needed: bigint | null, isolation: Isolation, work: (manager: EntityManager) => Promise<T>): Promise<ReplicaOutcome<T>> {
    const runner = replica.createQueryRunner();
    let connection: PgConnection | null = null;
    let broken = false;
    let opened = false;
    try {
      const client = (connection = (await runner.connect()) as PgConnection);
      // Until the transaction is open, behind a pooler each message waits there for a server session.
      const send = (sql: string) => withTimeout(client.query(sql), SESSION_WAIT_MS, () => new NoReplicaSession(`no replica session within ${SESSION_WAIT_MS} ms`));
      const begin = replicaBegin(isolation);
      if (needed === null) await send(begin);
      else if (!(await this.openReplayed(send, begin, needed))) return { ran: false, reason: 'not_replayed' };
      opened = true;
      // A statement the replica never answered: the connection is closed (releaseReplica, as for every replica
      // fault), not rolled back first, since a ROLLBACK would queue behind that statement for a whole timeout more.
      const value = await inOpenTransaction(runner, work, unanswered);
      databaseReads.inc({ target: 'replica', reason: 'replica' });
      return { ran: true, value };
    } catch (error) {
      // An error before the read's transaction was open (a SET LOCAL refused, say) may leave one open or aborted on it.
      broken = !opened || replicaFault(error);
      if (poolBusy(error)) return { ran: false, reason: 'busy' };
      if (!replicaFault(error)) throw error;
      this.failed(error);
      return { ran: false, reason: 'failed_over' };
    } finally {
      await releaseReplica(runner, connection, broken);
    }
  }

  /** The position this request's credential must find replayed: none without a credential or a kept write; a reason to read the primary. */
  private async writerPosition(): Promise<{ lsn: bigint | null } | { reason: RouteReason }> {
    const writer = readContext.getStore()?.writer;
    if (writer === undefined) return { lsn: null };
    const until = this.unrecorded.get(writer);
    if (until !== undefined) {
      if (until > performance.now()) return { reason: 'no_write_record' };
      this.unrecorded.delete(writer);
    }
    try {
      const kept = await this.redis.get(this.writeKey(writer));
      return { lsn: kept === null ? null : BigInt(`0x${kept}`) };
    } catch {
      // Whether this credential wrote a moment ago cannot be known.
      return { reason: 'no_write_record' };
    }
  }

  /**
   * Opens the read's transaction (`begin`) on a session of the replica that has replayed `lsn`, asking
   * again every few ms for up to READ_REPLICA_WAIT_MS; false, with nothing left open, when none had.
   * The question (a transaction of its own, before the read's snapshot) and `begin` go in one message:
   * a pooler in transaction mode serves a message on one server session and keeps that session for
   * the client while a transaction is open on it, so the read runs on the server that answered, which
   * two statements sent one after the other would not ensure with several replicas behind the pooler.
   */
  private async openReplayed(send: (sql: string) => Promise<PgResult | PgResult[]>, begin: string, lsn: bigint): Promise<boolean> {
    const deadline = performance.now() + this.config.readReplicaWaitMs;
    for (;;) {
      const results = (await send(`BEGIN READ ONLY; ${REPLAY_POSITION_SQL}; COMMIT; ${begin}`)) as PgResult[];
      if (lsnValue((results[1].rows[0] as { lsn: string }).lsn) >= lsn) return true;
      await send('ROLLBACK');
      if (performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
    }
  }

  private async sample(): Promise<void> {
    if (this.stopped) return;
    let lsn: bigint;
    try {
      lsn = await this.primaryPosition();
    } catch (error) {
      // The primary's trouble says nothing of the replica: its state stays as it was.
      this.logger.warn({ err: error }, "could not read the primary's WAL position; the read replica's state is left as it was");
      return;
    }
    const at = this.clock.now().getTime();
    this.unreplayed.push({ at, lsn });
    if (this.unreplayed.length > MAX_SAMPLES) this.unreplayed.splice(1, 1);
    try {
      const replica = await withTimeout(this.connectedReplica(), CHECK_TIMEOUT_MS);
      // What this check's connection says now, not the highest ever seen: another server may answer at that address.
      const replayed = await checkReplayed(replica);
      this.unreplayed = this.unreplayed.filter((sample) => sample.lsn > replayed);
      this.lagMs = this.unreplayed.length === 0 ? 0 : Math.max(0, at - this.unreplayed[0].at);
      this.setState(this.lagMs > this.config.readReplicaMaxLagMs ? 'lagging' : 'ok');
    } catch (error) {
      this.lagMs = null;
      this.setState('down', error);
    }
    this.showState();
  }

  /** The replica's pool, made at the first check that reaches it (a replica down at start does not stop the process). */
  private async connectedReplica(): Promise<DataSource> {
    if (this.replica) return this.replica;
    const source = new DataSource({
      type: 'postgres',
      url: this.config.databaseReadUrl!,
      entities: this.primary.entityMetadatas.map((metadata) => metadata.target),
      synchronize: false,
      migrationsRun: false,
      // A standby is read-only: no CREATE EXTENSION at connect.
      installExtensions: false,
      // No `options`: a pooler may stand in front of the replica; each read sets what it needs with SET LOCAL.
      extra: { max: 10, connectionTimeoutMillis: SESSION_WAIT_MS, keepAlive: true, query_timeout: this.config.readReplicaQueryTimeoutMs },
    });
    await source.initialize();
    if (this.stopped) {
      await source.destroy();
      throw new Error('shutting down');
    }
    this.replica = source;
    return source;
  }

  /** Where the primary's WAL is now: a write committed before this call is at or before it. */
  private async primaryPosition(): Promise<bigint> {
    const [row] = (await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn')) as { lsn: string }[];
    return lsnValue(row.lsn);
  }

  private failed(error: unknown): void {
    if (recoveryConflict(error)) return;
    this.lagMs = null;
    this.setState('down', error);
    this.showState();
  }

  private showState(): void {
    this.gauges?.up.set(this.state === 'ok' ? 1 : 0);
    this.gauges?.lag.set(this.lagMs === null ? Number.NaN : this.lagMs / 1000);
  }

  private setState(state: ReplicaState, error?: unknown): void {
    if (state === this.state) return;
    const lag = this.lagMs === null ? '' : ` (lag ${this.lagMs} ms)`;
    if (state === 'ok') this.logger.log(`read replica serving reads${lag}`);
    else this.logger.warn({ err: error }, `read replica ${state}${lag}: its reads go to the primary`);
    this.state = state;
  }

  private writeKey(writer: string): string {
    return this.redis.key('read-your-writes', writer);
  }

  /** A position is kept past any lag at which the replica is still read, so it is never forgotten too soon. */
  private writeMemoryMs(): number {
    return Math.max(60_000, 2 * this.config.readReplicaMaxLagMs);
  }
}

type Isolation = 'REPEATABLE READ' | 'READ COMMITTED';

/**
 * The BEGIN of a read-only transaction on a replica connection, with the settings the serving sessions
 * get from their connection options on the primary (the runtime role, no JIT) set locally, and a
 * snapshot read's own settings (readSnapshot) for REPEATABLE READ: one round trip before the read.
 */
function replicaBegin(isolation: Isolation): string {
  const settings = [`SET LOCAL role = ${RUNTIME_ROLE}`, 'SET LOCAL jit = off', ...(isolation === 'REPEATABLE READ' ? SNAPSHOT_SETTINGS : [])];
  return [`BEGIN ISOLATION LEVEL ${isolation} READ ONLY`, ...settings].join('; ');
}

/** One statement's result from node-postgres (a message of several statements gives one each). */
type PgResult = { rows: unknown[] };
/** The driver's connection under a query runner (node-postgres' client), as far as a replica read needs it. */
type PgConnection = { query(sql: string): Promise<PgResult | PgResult[]>; end(): Promise<void> };

/**
 * Gives a replica connection back to its pool, or closes it when a statement on it went unanswered or it
 * failed (the pool drops a closed connection). An unanswered statement may still run later: behind a pooler
 * it waits there until the replica is back, and a BEGIN run then would leave the session in a transaction
 * that the next read on this connection would join (docs/scaling.md, Read replica).
 */
async function releaseReplica(runner: QueryRunner, connection: PgConnection | null, broken: boolean): Promise<void> {
  if (broken) await connection?.end().catch(() => undefined);
  await runner.release();
}

/** The check's replay position, asked on one connection that is closed if it does not answer within CHECK_TIMEOUT_MS (releaseReplica). */
async function checkReplayed(replica: DataSource): Promise<bigint> {
  const runner = replica.createQueryRunner();
  let connection: PgConnection | null = null;
  let broken = false;
  try {
    connection = (await runner.connect()) as PgConnection;
    const [row] = (await withTimeout(runner.query(REPLAY_POSITION_SQL), CHECK_TIMEOUT_MS)) as { lsn: string }[];
    return lsnValue(row.lsn);
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    await releaseReplica(runner, connection, broken);
  }
}

/**
 * What the server has replayed, as `lsn`. A server at DATABASE_READ_URL that is not in recovery (the
 * primary itself, or a promoted replica) has everything it wrote: its own WAL position.
 */
const REPLAY_POSITION_SQL = 'SELECT coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS lsn';

function withTimeout<T>(work: Promise<T>, ms: number, late: () => Error = () => new Error(`no answer in ${ms} ms`)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const tooLate = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(late()), ms)));
  return Promise.race([work, tooLate]).finally(() => clearTimeout(timer));
}
