import type { Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { queryRows } from './rows';
import { Statement } from './statement';

/** A lease this process holds: the row's key and the attempt that took it. */
export interface HeldLease {
  id: string;
  attempt: number;
}

export interface RowLeaseOptions {
  /** The leased table, and the short name its rows go by in the rendered SQL (`d` for deliveries). */
  table: string;
  alias: string;
  /** The key column (text); `id` when not given. */
  id?: string;
  /** The attempt counter: each take adds one, and a renewal or release only touches the attempt that took the row. */
  attempt: string;
  /**
   * The lease column, NULL while no lease is held: either when the lease runs out (`until`, e.g.
   * leased_until) or when it was taken (`since`, e.g. issuing_since: it runs out `ms` later).
   */
  lease: { until: string } | { since: string };
  /**
   * The rows still to be worked on, as a condition on the row name given (`${row}.status = 'PENDING'`).
   * Leases are taken, renewed and swept only among them: a row that leaves them (settled, sent) has
   * ended its lease, whatever the lease column still says.
   */
  pending: (row: string) => string;
  /** How long a lease lasts without a renewal. */
  ms: number;
  /**
   * Columns set to the lease's end with it, at the take and at each renewal, for a table whose rows
   * also say when they are next due (a webhook delivery's next_attempt_at: a leased row is not due).
   * Only with `until`; a release leaves them as they are.
   */
  alsoUntil?: string[];
}

/** What a take writes besides the lease and the attempt: column → SQL expression. */
export type LeaseSet = Record<string, string>;

const NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * "A row is worked on by one process at a time" (docs/operations.md, Leases): a take counts an
 * attempt and writes a lease that runs out by itself, so a process that dies leaves the row to
 * another within the lease; the holder renews it while its work is alive, and ends it with the
 * outcome. Times are the database's (`clock_timestamp()`), never a process's: the processes'
 * clocks may disagree, the database's is one.
 *
 * A RowLease renders statements (SQL text, parameters in a `Statement`), so the owning lib runs them
 * on its own connections and commits the golden text; only the heartbeat runs one itself. The
 * owner writes the table (docs/architecture.md, Table ownership): a lease is declared in the lib
 * that owns its table, which the ownership spec checks.
 */
export class RowLease {
  readonly table: string;
  readonly alias: string;
  readonly id: string;
  readonly attempt: string;
  /** The lease column. */
  readonly column: string;
  private readonly holdsUntil: boolean;
  private readonly interval: string;

  constructor(private readonly options: RowLeaseOptions) {
    this.table = options.table;
    this.alias = options.alias;
    this.id = options.id ?? 'id';
    this.attempt = options.attempt;
    this.holdsUntil = 'until' in options.lease;
    this.column = 'until' in options.lease ? options.lease.until : options.lease.since;
    const names = [this.table, this.alias, this.id, this.attempt, this.column, ...(options.alsoUntil ?? [])];
    const odd = names.find((name) => !NAME.test(name));
    if (odd !== undefined) throw new Error(`not a plain SQL name in a row lease: ${odd}`);
    if (!Number.isInteger(options.ms) || options.ms <= 0) throw new Error(`a lease lasts a positive whole number of milliseconds, not ${options.ms}`);
    if (options.alsoUntil?.length && !this.holdsUntil) throw new Error('alsoUntil needs a lease column that holds when the lease runs out');
    this.interval = `interval '${options.ms} milliseconds'`;
  }

  get ms(): number {
    return this.options.ms;
  }

  /** When a lease taken now runs out. */
  endsAt(): string {
    return `clock_timestamp() + ${this.interval}`;
  }

  /** The lease column's value for a lease taken (or renewed) now. */
  private taken(): string {
    return this.holdsUntil ? this.endsAt() : 'clock_timestamp()';
  }

  /** The lease of `row` has run out (its holder stopped renewing it: presumed dead). */
  expired(row: string): string {
    const column = `${row}.${this.column}`;
    return this.holdsUntil ? `${column} < clock_timestamp()` : `${column} < clock_timestamp() - ${this.interval}`;
  }

  /** No live lease on `row`: none was taken, it was ended, or it ran out. */
  free(row: string): string {
    return `(${row}.${this.column} IS NULL OR ${this.expired(row)})`;
  }

  /** `row` is still to be worked on (the declaration's `pending`), for a query of the owner's own, e.g. a sweeper's. */
  pending(row: string): string {
    return this.options.pending(row);
  }

  /** `row` is still at the attempt `attempt` (an SQL expression): no later take has happened. */
  atAttempt(row: string, attempt: string): string {
    return `${row}.${this.attempt} = ${attempt}`;
  }

  /** The SET item that ends the lease, for the statement that records the outcome. */
  get end(): string {
    return `${this.column} = NULL`;
  }

  /** The SET items of a take: one more attempt, what the caller writes, and the lease. */
  private takeSet(set: LeaseSet, row: string): string[] {
    return [`${this.attempt} = ${row}.${this.attempt} + 1`, ...setItems(set), ...this.leaseSet()];
  }

  /** The lease column (and the columns that follow it) for a lease taken or renewed now. */
  private leaseSet(): string[] {
    return [...(this.options.alsoUntil ?? []).map((column) => `${column} = ${this.endsAt()}`), `${this.column} = ${this.taken()}`];
  }

  /**
   * Takes the lease of one row by key, if it is pending and no live lease is on it. Waits for a row
   * lock rather than skipping the row: its holder is about to settle or release it, and the
   * conditions are checked again after the wait. No row returned: settled, or held by another.
   */
  takeOne(statement: Statement, options: { id: string; set?: LeaseSet; returning: string }): string {
    const row = this.alias;
    return statement.text(
      lines(
        `UPDATE ${this.table} ${row}`,
        `   SET ${this.takeSet(options.set ?? {}, row).join(',\n       ')}`,
        ` WHERE ${row}.${this.id} = ${statement.param(options.id)} AND ${this.options.pending(row)}`,
        `   AND ${this.free(row)}`,
        `RETURNING ${options.returning}`,
      ),
    );
  }

  /**
   * Takes the leases of up to `limit` pending rows with no live lease that match `where`, in
   * `orderBy` order, skipping rows another transaction has locked (`FOR UPDATE SKIP LOCKED`: any
   * number of processes take batches side by side, never the same row). `from` joins rows of a CTE
   * the caller added to the statement (read in RETURNING). `where` and `orderBy` get the name the
   * candidate rows go by.
   */
  takeBatch(
    statement: Statement,
    options: { where: (row: string) => string; orderBy: (row: string) => string; limit: number; from?: string; set?: LeaseSet; returning: string },
  ): string {
    const row = this.alias;
    const candidate = 'candidate';
    return statement.text(
      lines(
        `UPDATE ${this.table} ${row}`,
        `   SET ${this.takeSet(options.set ?? {}, row).join(',\n       ')}`,
        options.from ? `  FROM ${options.from}` : null,
        ` WHERE ${row}.${this.id} IN (`,
        `         SELECT ${candidate}.${this.id} FROM ${this.table} ${candidate}`,
        `          WHERE ${this.options.pending(candidate)}`,
        `            AND ${this.free(candidate)}`,
        `            AND ${options.where(candidate)}`,
        `          ORDER BY ${options.orderBy(candidate)}`,
        `          LIMIT ${statement.param(options.limit)}`,
        `            FOR UPDATE SKIP LOCKED)`,
        `RETURNING ${options.returning}`,
      ),
    );
  }

  /**
   * Moves on the leases in `held`, only while each row is still pending, at the attempt that took
   * it and leased: a renewal never takes back a row another process took over after a missed
   * renewal, nor revives an ended lease. A row locked now is skipped: it is being settled (its
   * lease ends anyway), and a renewal must not wait on, or deadlock with, that write. Returns the
   * keys renewed (as `id`).
   */
  renew(statement: Statement, held: HeldLease[]): string {
    const row = this.alias;
    const heldRows = this.heldRows(statement, held);
    const mine = statement.with(
      'mine',
      lines(
        `SELECT ${row}.${this.id} AS id`,
        `    FROM ${heldRows} JOIN ${this.table} ${row} ON ${row}.${this.id} = ${heldRows}.id AND ${this.atAttempt(row, `${heldRows}.attempt`)}`,
        `   WHERE ${this.options.pending(row)} AND ${row}.${this.column} IS NOT NULL`,
        `     FOR UPDATE OF ${row} SKIP LOCKED`,
      ),
    );
    return statement.text(
      lines(
        `UPDATE ${this.table} ${row}`,
        `   SET ${this.leaseSet().join(',\n       ')}`,
        `  FROM ${mine}`,
        ` WHERE ${row}.${this.id} = ${mine}.id`,
        `RETURNING ${row}.${this.id} AS id`,
      ),
    );
  }

  /**
   * Gives up the leases in `held` without an outcome (a transient failure: the next try need not
   * wait for the lease to run out), under the same conditions as a renewal, writing `set` with it
   * (e.g. why the try failed). Waits for a locked row.
   */
  release(statement: Statement, held: HeldLease[], options: { set?: LeaseSet } = {}): string {
    const row = this.alias;
    const heldRows = this.heldRows(statement, held);
    return statement.text(
      lines(
        `UPDATE ${this.table} ${row}`,
        `   SET ${[this.end, ...setItems(options.set ?? {})].join(',\n       ')}`,
        `  FROM ${heldRows}`,
        ` WHERE ${row}.${this.id} = ${heldRows}.id AND ${this.atAttempt(row, `${heldRows}.attempt`)}`,
        `   AND ${this.options.pending(row)} AND ${row}.${this.column} IS NOT NULL`,
        `RETURNING ${row}.${this.id} AS id`,
      ),
    );
  }

  /**
   * For a sweeper: pending rows whose lease ran out (their holder died), as `id` and `attempt`,
   * oldest lease first.
   */
  expiredRows(statement: Statement, options: { limit: number }): string {
    const row = this.alias;
    return statement.text(
      lines(
        `SELECT ${row}.${this.id} AS id, ${row}.${this.attempt} AS attempt`,
        `  FROM ${this.table} ${row}`,
        ` WHERE ${this.options.pending(row)} AND ${this.expired(row)}`,
        ` ORDER BY ${row}.${this.column}`,
        ` LIMIT ${statement.param(options.limit)}`,
      ),
    );
  }

  private heldRows(statement: Statement, held: HeldLease[]) {
    return statement.with(
      'held',
      `SELECT * FROM unnest(${statement.param(held.map((h) => h.id))}::text[], ${statement.param(held.map((h) => h.attempt))}::int[]) AS held (id, attempt)`,
    );
  }
}

/** The SET items of what a caller writes besides the lease. */
function setItems(set: LeaseSet): string[] {
  const items = Object.entries(set);
  const odd = items.find(([column]) => !NAME.test(column));
  if (odd) throw new Error(`not a plain column name: ${odd[0]}`);
  return items.map(([column, value]) => `${column} = ${value}`);
}

function lines(...parts: (string | null)[]): string {
  return parts.filter((part) => part !== null).join('\n');
}

/**
 * The leases one process holds on one table, kept alive by a single heartbeat: every `everyMs` it
 * renews, in one statement, those taken or last renewed `renewAfterMs` ago or more. Work that ends
 * sooner costs no renewal. Ages are read on this process's clock before each statement is sent, so
 * a lease is never older here than in the database. A failed renewal is only logged: the work goes
 * on, and at worst another process takes the row over once the lease runs out (at least once).
 */
export class LeaseHeartbeat {
  private readonly held = new Map<string, { attempt: number; leasedAt: number }>();
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;

  constructor(
    private readonly lease: RowLease,
    private readonly manager: EntityManager,
    private readonly options: { renewAfterMs: number; everyMs: number; logger: Logger; what: string },
  ) {
    if (options.renewAfterMs + options.everyMs >= lease.ms) throw new Error(`a ${options.what} lease of ${lease.ms} ms would run out before its renewal`);
  }

  /** Leases held now. */
  get size(): number {
    return this.held.size;
  }

  /** Keeps the lease of `attempt` on `id` alive from now on; `leasedAt` is when it was taken (this clock, before the take was sent). */
  hold(id: string, attempt: number, leasedAt: number = Date.now()): void {
    this.held.set(id, { attempt, leasedAt });
  }

  /**
   * The work on `id` is over (its outcome written, or given up): no more renewals. With `attempt`,
   * only if `id` is still held at that attempt (a later take of the same row by this process keeps
   * its renewals).
   */
  drop(id: string, attempt?: number): void {
    if (attempt === undefined || this.held.get(id)?.attempt === attempt) this.held.delete(id);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renewDue(), this.options.everyMs);
    this.timer.unref();
  }

  /** Stops the heartbeat; a renewal under way is awaited. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.renewing;
  }

  /** Renews the leases held for `renewAfterMs` or more; a beat that comes while one is under way is skipped. */
  renewDue(): Promise<void> {
    if (this.renewing || this.held.size === 0) return Promise.resolve();
    const now = Date.now();
    const due = [...this.held].filter(([, lease]) => now - lease.leasedAt >= this.options.renewAfterMs).map(([id, lease]) => ({ id, attempt: lease.attempt }));
    if (due.length === 0) return Promise.resolve();
    const statement = new Statement();
    const sql = this.lease.renew(statement, due);
    this.renewing = queryRows<{ id: string }>(this.manager, sql, statement.params)
      .then((rows) => {
        for (const { id } of rows) {
          const lease = this.held.get(id);
          if (lease) lease.leasedAt = now;
        }
      })
      .catch((error: unknown) => {
        this.options.logger.warn({ err: error, count: due.length }, `renewing ${this.options.what} leases failed; retrying on the next beat`);
      })
      .finally(() => {
        this.renewing = null;
      });
    return this.renewing;
  }
}
