import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge } from 'prom-client';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../clock/clock';
import { APP_CONFIG } from '../config/config.module';
import { throughPooler, type AppConfig } from '../config/app-config';
import { metricsRegistry } from '../metrics/metrics';
import { RedisClient } from '../redis/redis.module';
import { SESSION_OPTIONS } from './data-source-options';
import { readSnapshot } from './read-snapshot';

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
 *   for the replica to have replayed it, else reads the primary. Without Redis, such reads go to the
 *   primary.
 * - **A replica that fails mid-read** (killed, restarted, a query cancelled by recovery): the read is
 *   run again on the primary, and a report carries on there from the batch it was at.
 */

export type ReplicaState = 'ok' | 'lagging' | 'down';
export type ReadTarget = 'replica' | 'primary';
/** Why a read went where it did (the `reason` label of `database_reads_total`). */
type RouteReason = 'replica' | 'lagging' | 'down' | 'not_replayed' | 'no_write_record' | 'failed_over';

/** Who is reading, for read-your-writes: the credential of the request (set by the auth layer around a handler). */
export const readContext = new AsyncLocalStorage<{ writer: string }>();

/** Between two lag samples. */
export const REPLICA_CHECK_INTERVAL_MS = 1_000;
/** How often a read waiting for its credential's last write asks the replica again. */
const CATCH_UP_POLL_MS = 5;

export const readReplicaUp = new Gauge({
  name: 'database_read_replica_up',
  help: 'Whether reads may go to the read replica: 1 when it answers within READ_REPLICA_MAX_LAG_MS of the primary, 0 when it is down or lagging (absent without DATABASE_READ_URL).',
  registers: [metricsRegistry],
});

export const readReplicaLag = new Gauge({
  name: 'database_read_replica_lag_seconds',
  help: 'How far the read replica is behind the primary, from the last sample (absent while it does not answer).',
  registers: [metricsRegistry],
});

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
    if (/^(08|57P|53)/.test(code) || code === '40001') return true;
    if (/^E(CONN|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|AI_AGAIN)/.test(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i.test(message);
}

/** A replica fault that says nothing about its health: the query lost to recovery, the next one may not. */
function recoveryConflict(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '40001';
}

/** Runs a read on one database: the primary, or the replica with a fall back to the primary. */
export type Reader = <T>(work: (manager: EntityManager) => Promise<T>) => Promise<T>;

@Injectable()
export class ReadRouting implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ReadRouting.name);
  private replica: DataSource | null = null;
  private state: ReplicaState = 'down';
  private lagMs: number | null = null;
  /** The replica's replay position at the last sample or wait. */
  private replayed = 0n;
  /** Primary positions sampled and not yet replayed, oldest first, with when they were sampled. */
  private unreplayed: { at: number; lsn: bigint }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisClient,
    private readonly clock: Clock,
  ) {}

  /** Whether DATABASE_READ_URL is set. */
  get replicated(): boolean {
    return this.config.databaseReadUrl !== null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.replicated) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.checking;
    await this.replica?.destroy().catch(() => undefined);
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

  /** `work` in one read-only snapshot (readSnapshot) on the replica when it may serve this read, else on the primary. */
  snapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.route((source) => readSnapshot(source, work));
  }

  /** `work` as plain statements (each its own snapshot) on the replica when it may serve this read, else on the primary. */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.route((source) => work(source.manager));
  }

  /**
   * A reader for a long read in many statements (a report): it reads what the primary had committed
   * when it was made, from the replica while the replica serves and has replayed that much, and from
   * the primary once the replica fails or falls behind (it does not go back to the replica).
   */
  async reader(): Promise<Reader> {
    const since = this.replicated ? await this.primaryPosition().catch(() => null) : null;
    /** Set once the reads have moved to the primary, with why. */
    let onPrimary: RouteReason | null = since === null ? 'down' : null;
    return async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
      const replica = this.replica;
      if (onPrimary === null) {
        if (!replica || this.state !== 'ok') onPrimary = this.state === 'ok' ? 'down' : this.state;
        else if (!(await this.caughtUp(replica, since!))) onPrimary = 'not_replayed';
      }
      if (onPrimary === null) {
        try {
          const result = await work(replica!.manager);
          databaseReads.inc({ target: 'replica', reason: 'replica' });
          return result;
        } catch (error) {
          if (!replicaFault(error)) throw error;
          this.failed(error);
          onPrimary = 'failed_over';
        }
      }
      if (this.replicated) databaseReads.inc({ target: 'primary', reason: onPrimary });
      return work(this.primary.manager);
    };
  }

  /**
   * Called after a request by `writer` that may have written (any method but GET and HEAD): keeps the
   * primary's current position as that credential's, for a minute, so its next reads see its writes.
   * Never lowers a position another process kept meanwhile.
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
      // Reads by this credential find no record and go to the primary while Redis is away (below).
      this.logger.warn({ err: error }, "could not keep a credential's last write position; its reads go to the primary");
    }
  }

  private async route<T>(run: (source: DataSource) => Promise<T>): Promise<T> {
    const replica = this.replica;
    if (!replica || this.state !== 'ok') {
      if (this.replicated) databaseReads.inc({ target: 'primary', reason: this.state === 'ok' ? 'down' : this.state });
      return run(this.primary);
    }
    const reason = await this.mayRead(replica);
    if (reason !== 'replica') {
      databaseReads.inc({ target: 'primary', reason });
      return run(this.primary);
    }
    try {
      const result = await run(replica);
      databaseReads.inc({ target: 'replica', reason: 'replica' });
      return result;
    } catch (error) {
      if (!replicaFault(error)) throw error;
      this.failed(error);
      databaseReads.inc({ target: 'primary', reason: 'failed_over' });
      return run(this.primary);
    }
  }

  /** Whether this read may go to the replica as far as read-your-writes goes. */
  private async mayRead(replica: DataSource): Promise<RouteReason> {
    const writer = readContext.getStore()?.writer;
    if (writer === undefined) return 'replica';
    let kept: string | null;
    try {
      kept = await this.redis.get(this.writeKey(writer));
    } catch {
      // Whether this credential wrote a moment ago cannot be known.
      return 'no_write_record';
    }
    if (kept === null) return 'replica';
    return (await this.caughtUp(replica, BigInt(`0x${kept}`))) ? 'replica' : 'not_replayed';
  }

  /** Whether the replica has replayed `lsn`, asking it again every few ms for up to READ_REPLICA_WAIT_MS. */
  private async caughtUp(replica: DataSource, lsn: bigint): Promise<boolean> {
    if (this.replayed >= lsn) return true;
    const deadline = performance.now() + this.config.readReplicaWaitMs;
    for (;;) {
      try {
        const replayed = await this.replayPosition(replica);
        if (replayed > this.replayed) this.replayed = replayed;
      } catch (error) {
        if (replicaFault(error)) this.failed(error);
        return false;
      }
      if (this.replayed >= lsn) return true;
      if (performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
    }
  }

  private async sample(): Promise<void> {
    if (this.stopped) return;
    try {
      const replica = await this.connectedReplica();
      const lsn = await this.primaryPosition();
      const at = this.clock.now().getTime();
      this.unreplayed.push({ at, lsn });
      const replayed = await this.replayPosition(replica);
      if (replayed > this.replayed) this.replayed = replayed;
      this.unreplayed = this.unreplayed.filter((sample) => sample.lsn > this.replayed).slice(-600);
      this.lagMs = this.unreplayed.length === 0 ? 0 : Math.max(0, at - this.unreplayed[0].at);
      this.setState(this.lagMs > this.config.readReplicaMaxLagMs ? 'lagging' : 'ok');
    } catch (error) {
      this.lagMs = null;
      this.setState('down', error);
    }
    readReplicaUp.set(this.state === 'ok' ? 1 : 0);
    if (this.lagMs === null) readReplicaLag.reset();
    else readReplicaLag.set(this.lagMs / 1000);
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
      extra: { max: 10, connectionTimeoutMillis: 2000, keepAlive: true, ...(throughPooler(this.config) ? {} : { options: SESSION_OPTIONS }) },
    });
    await source.initialize();
    this.replica = source;
    return source;
  }

  /** Where the primary's WAL is now: a write committed before this call is at or before it. */
  private async primaryPosition(): Promise<bigint> {
    const [row] = (await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn')) as { lsn: string }[];
    return lsnValue(row.lsn);
  }

  /**
   * What the replica has replayed. A server at DATABASE_READ_URL that is not in recovery (the primary
   * itself, or a promoted replica) has everything it wrote: its own WAL position.
   */
  private async replayPosition(replica: DataSource): Promise<bigint> {
    const [row] = (await replica.query(
      'SELECT coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text AS lsn',
    )) as { lsn: string }[];
    return lsnValue(row.lsn);
  }

  private failed(error: unknown): void {
    if (recoveryConflict(error)) return;
    this.lagMs = null;
    this.setState('down', error);
    readReplicaUp.set(0);
    readReplicaLag.reset();
  }

  private setState(state: ReplicaState, error?: unknown): void {
    if (state === this.state) return;
    const lag = this.lagMs === null ? '' : ` (lag ${this.lagMs} ms)`;
    if (state === 'ok') this.logger.log(`read replica serving reads again${lag}`);
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
