import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock, LeaseHeartbeat, queryRows, ReadRouting, recordEvents, RowLease, Statement, Sweepers } from '@app/core';
import type { ReportType } from './entities/report.entity';
import { csvText } from './report-csv';
import { ReportSources } from './report-sources';
import { REPORT_RETENTION_MS } from './reports.service';

export const REPORT_BUILD_SWEEP = 'report-builds';
export const REPORT_EXPIRY_SWEEP = 'report-expiry';
const BUILD_INTERVAL_MS = 1_000;
const EXPIRY_INTERVAL_MS = 60_000;
/** Rows read per statement: one batch is all a build holds of the table. */
export const REPORT_BATCH_ROWS = 1_000;
/** The CSV is stored in pieces of at most this many bytes (a piece is written once the next text would not fit). */
export const REPORT_CHUNK_BYTES = 1024 * 1024;
/**
 * Rows turned into CSV text at a time: about 40 kB of text, under the size at which V8 puts a string
 * straight into its large-object space, which only a full collection frees.
 */
const CSV_SLICE_ROWS = 250;
/**
 * A build rests this long for each millisecond it worked (docs/reports.md, Pace): a report is
 * background work, and on a small machine a build at full speed takes the cores that sends need.
 * At 1, a million rows take about twice as long as flat out, well inside a minute.
 */
export const REPORT_REST_PER_WORK = 1;
/** Takes of one report before it is FAILED (each take after the first follows a crash or an error). */
const MAX_ATTEMPTS = 3;

/**
 * One build at a time per report (docs/reports.md, Building): the take sets RUNNING and counts an
 * attempt; the lease runs out 60 s after its last renewal, so a worker that dies mid-build leaves
 * the report to another, which starts over.
 */
export const REPORT_LEASE = new RowLease({
  table: 'reports',
  alias: 'r',
  attempt: 'attempts',
  lease: { until: 'leased_until' },
  pending: (row) => `${row}.status IN ('PENDING', 'RUNNING')`,
  ms: 60_000,
});

interface TakenReport {
  id: string;
  account_id: string;
  type: ReportType;
  filters: Record<string, string>;
  attempts: number;
}

/**
 * Builds requested reports on the worker and deletes expired ones (docs/reports.md). Each sweep run
 * takes the oldest open report without a live lease, streams its rows from the owning lib a batch
 * at a time into CSV (csv-stringify), stores the CSV in pieces, and completes the report with its
 * `report.completed` event in one transaction. Memory holds one batch and one piece, whatever the
 * report's size.
 */
@Injectable()
export class ReportBuilder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ReportBuilder.name);
  private readonly heartbeat: LeaseHeartbeat;
  /** The builds under way (one report after another), started by the sweep and not awaited by it. */
  private building: Promise<number> | null = null;
  /** Set at shutdown: the build under way stops at its next batch and gives its report back. */
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sources: ReportSources,
    private readonly sweepers: Sweepers,
    private readonly clock: Clock,
    private readonly reads: ReadRouting,
  ) {
    this.heartbeat = new LeaseHeartbeat(REPORT_LEASE, dataSource.manager, { renewAfterMs: 20_000, everyMs: 5_000, logger: this.logger, what: 'report' });
  }

  onModuleInit(): void {
    this.sweepers.register({ name: REPORT_BUILD_SWEEP, everyMs: BUILD_INTERVAL_MS, run: () => this.kick() });
    this.sweepers.register({ name: REPORT_EXPIRY_SWEEP, everyMs: EXPIRY_INTERVAL_MS, run: () => this.expire() });
    this.heartbeat.start();
  }

  /**
   * Shutdown does not wait for a build of a million rows: the build stops at its next batch and
   * releases its report (PENDING again), which a worker then builds from the start.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.building;
    await this.heartbeat.stop();
  }

  /**
   * What the sweep runs: starts building the open reports unless a build is under way, and returns at
   * once (a long build holds neither the sweep registry nor the shutdown, which waits for sweeps).
   */
  kick(): Promise<void> {
    if (!this.stopping) {
      // Not awaited by anyone: a failure (the database away while a report is taken) is logged here,
      // or it would be an unhandled rejection that ends the worker process.
      this.building ??= this.buildDue()
        .catch((error: unknown) => {
          this.logger.error({ err: error }, 'building reports failed; the next tick tries again');
          return 0;
        })
        .finally(() => {
          this.building = null;
        });
    }
    return Promise.resolve();
  }

  /** Builds open reports, one after another, until none is left to take; returns how many it completed. */
  async buildDue(): Promise<number> {
    let completed = 0;
    while (!this.stopping) {
      const report = await this.take();
      if (!report) return completed;
      // A failed build waits for the next tick before anything is taken again (a database that is away now may be back).
      if (!(await this.build(report))) return completed;
      completed += 1;
    }
    return completed;
  }

  /** Deletes the reports past their expiry by the clock (their pieces go with them); FAILED ones 7 days after the request. */
  async expire(): Promise<number> {
    const now = this.clock.now();
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM reports WHERE (status = 'COMPLETED' AND expires_at <= $1) OR (status = 'FAILED' AND created_at <= $2)`,
      [now, new Date(now.getTime() - REPORT_RETENTION_MS)],
    )) as [unknown, number];
    return deleted;
  }

  private async take(): Promise<TakenReport | null> {
    const statement = new Statement();
    const sql = REPORT_LEASE.takeBatch(statement, {
      where: () => 'true',
      orderBy: (row) => `${row}.created_at`,
      limit: 1,
      set: { status: `'RUNNING'`, started_at: 'clock_timestamp()' },
      returning: 'r.id, r.account_id, r.type, r.filters, r.attempts',
    });
    const at = Date.now();
    const [row] = await queryRows<TakenReport>(this.dataSource.manager, sql, statement.params);
    if (row) this.heartbeat.hold(row.id, row.attempts, at);
    return row ?? null;
  }

  /** Builds one taken report; false when it failed (released for another try, or FAILED after the last). */
  private async build(report: TakenReport): Promise<boolean> {
    const source = this.sources.of(report.type);
    try {
      // Pieces of an earlier attempt that died are of no use: this one starts over.
      await this.dataSource.query(`DELETE FROM report_chunks WHERE report_id = $1 AND attempt <> $2`, [report.id, report.attempts]);
      const pieces = new PieceWriter(this.dataSource, report.id, report.attempts);
      await pieces.add(csvText([], source.columns));
      let rows = 0;
      // What the primary had committed when the build began, from the read replica while it serves and keeps up, else
      // from the primary, carrying on from the batch it was at (docs/reports.md, Building).
      const read = await this.reads.reader();
      let started = performance.now();
      for await (const batch of source.rows(read, report.account_id, report.filters, REPORT_BATCH_ROWS)) {
        if (this.stopping) throw new BuildStopped();
        rows += batch.length;
        // In slices, so that each text stays small enough for V8's young generation (docs/reports.md, Memory).
        for (let at = 0; at < batch.length; at += CSV_SLICE_ROWS) await pieces.add(csvText(batch.slice(at, at + CSV_SLICE_ROWS)));
        await rest((performance.now() - started) * REPORT_REST_PER_WORK);
        started = performance.now();
      }
      const bytes = await pieces.finish();
      return await this.complete(report, rows, bytes);
    } catch (error) {
      await this.failed(report, error);
      return false;
    } finally {
      this.heartbeat.drop(report.id, report.attempts);
    }
  }

  /**
   * COMPLETED with its row count and expiry, and `report.completed`, in one transaction; only by the
   * attempt that holds it (a build whose lease was taken over completes nothing).
   */
  private async complete(report: TakenReport, rowCount: number, byteCount: number): Promise<boolean> {
    const now = this.clock.now();
    return this.dataSource.transaction(async (manager) => {
      const done = await queryRows<{ id: string }>(
        manager,
        `UPDATE reports r SET status = 'COMPLETED', row_count = $3, byte_count = $4, completed_at = $5, expires_at = $6, ${REPORT_LEASE.end}
          WHERE r.id = $1 AND ${REPORT_LEASE.atAttempt('r', '$2')} AND ${REPORT_LEASE.pending('r')}
          RETURNING r.id`,
        [report.id, report.attempts, rowCount, byteCount, now, new Date(now.getTime() + REPORT_RETENTION_MS)],
      );
      if (done.length === 0) return false;
      // Pieces a build that lost its lease may have written meanwhile: only this attempt's are the file.
      await manager.query(`DELETE FROM report_chunks WHERE report_id = $1 AND attempt <> $2`, [report.id, report.attempts]);
      await recordEvents(manager, [{ accountId: report.account_id, type: 'report.completed', data: { reportId: report.id, type: report.type, rowCount } }]);
      return true;
    });
  }

  /** A failed build: released for another try, or FAILED once it has had MAX_ATTEMPTS. Its pieces are deleted. */
  private async failed(report: TakenReport, error: unknown): Promise<void> {
    const stopped = error instanceof BuildStopped;
    if (stopped) this.logger.log({ reportId: report.id }, 'report build stopped by the shutdown; released for another worker');
    else this.logger.error({ err: error, reportId: report.id, attempt: report.attempts }, 'building a report failed');
    try {
      await this.dataSource.query(`DELETE FROM report_chunks WHERE report_id = $1 AND attempt = $2`, [report.id, report.attempts]);
      const statement = new Statement();
      const set: Record<string, string> =
        report.attempts >= MAX_ATTEMPTS && !stopped
          ? { status: `'FAILED'`, failure_reason: statement.param(error instanceof Error ? error.message.slice(0, 500) : String(error)) }
          : { status: `'PENDING'` };
      const sql = REPORT_LEASE.release(statement, [{ id: report.id, attempt: report.attempts }], { set });
      await queryRows(this.dataSource.manager, sql, statement.params);
    } catch (cleanup) {
      // The lease runs out by itself and another take tries again.
      this.logger.warn({ err: cleanup, reportId: report.id }, 'recording a failed report build failed');
    }
  }
}

/** The worker is shutting down: the build gives its report back rather than finish it. */
class BuildStopped extends Error {
  constructor() {
    super('stopped by the shutdown');
  }
}

/**
 * The CSV of one build attempt written in pieces of at most REPORT_CHUNK_BYTES, in order. Each batch's
 * text is encoded at once into one buffer that every piece of the build reuses: the text dies young, and
 * a build allocates no megabyte-sized string or buffer per piece for the garbage collector to find later
 * (BENCHMARKS.md, Reports). node-postgres sends a buffer parameter as binary, and the insert is awaited
 * before the buffer is written again. The one exception is a slice whose own text is larger than a piece
 * (rows with very long or many multi-byte fields): it is written as a piece of its own, encoded for that
 * piece alone, and the shared buffer is left as it was (docs/reports.md, Where the file is kept).
 */
class PieceWriter {
  private readonly buffer = Buffer.allocUnsafe(REPORT_CHUNK_BYTES);
  private used = 0;
  private seq = 0;
  private total = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly reportId: string,
    private readonly attempt: number,
  ) {}

  async add(text: string): Promise<void> {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (this.used + bytes > this.buffer.length && this.used > 0) await this.flush();
    if (bytes > this.buffer.length) {
      await this.insert(Buffer.from(text, 'utf8'));
      return;
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
    if (this.used === this.buffer.length) await this.flush();
  }

  /** Writes what is left; returns the size of the whole CSV. */
  async finish(): Promise<number> {
    if (this.used > 0 || this.seq === 0) await this.flush();
    return this.total;
  }

  private async flush(): Promise<void> {
    await this.insert(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private async insert(data: Buffer): Promise<void> {
    await this.dataSource.query(`INSERT INTO report_chunks (report_id, attempt, seq, data) VALUES ($1, $2, $3, $4)`, [this.reportId, this.attempt, this.seq, data]);
    this.seq += 1;
    this.total += data.length;
  }
}

/** Yields the thread for `ms` (a pause in background work, not a wait for time to pass: nothing depends on its length). */
function rest(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
