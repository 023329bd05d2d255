import type { Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { HeldLease, LeaseHeartbeat, queryRows, RowLease, Statement } from '@app/core';

/**
 * A lease on one row, so that one run at a time works on it (docs/operations.md, Leases): a card at
 * the supplier, an e-mail with the SMTP server. Each is declared once with the shared `RowLease`
 * helper (CARD_ISSUANCE_LEASE, MAIL_LEASE), which renders every statement below; the times are the
 * database's (`clock_timestamp()`), shared by every worker.
 *
 * - `take` returns what the run now holds, with its attempt number, or null when the row is settled
 *   or another run's lease is still live;
 * - `hold` runs the work while this process's heartbeat renews the lease, so a slow answer is not
 *   taken for a dead run; `renew` is one such renewal on its own;
 * - `release` gives it up after a failure, so the retry need not wait for it to run out.
 *
 * Renew and release touch the lease of the holder's own attempt only: a run whose lease ran out and
 * was taken over can never take the row back.
 */
export interface Lease<Held, ReleaseNote extends unknown[] = []> {
  take(id: string): Promise<Held | null>;
  renew(held: Held): Promise<void>;
  release(held: Held, ...note: ReleaseNote): Promise<void>;
  hold<T>(held: Held, work: () => Promise<T>): Promise<T>;
}

/** How often a heartbeat looks for leases due for renewal. */
const HEARTBEAT_MS = 1_000;

/**
 * The leases of one table this process holds while their work runs, renewed by one `LeaseHeartbeat`
 * (one statement per beat for all of them, only those `renewAfterMs` old or more). The heartbeat
 * runs only while a lease is held, so a process that holds none (the API) has no timer, and one
 * that is shutting down keeps renewing until its last run ends.
 */
export class HeldLeases<Held extends object> {
  /** When each lease was taken, on this process's clock, read before its take was sent. */
  private readonly takenAt = new WeakMap<Held, number>();
  private readonly heartbeat: LeaseHeartbeat;

  constructor(
    private readonly lease: RowLease,
    private readonly manager: EntityManager,
    private readonly key: (held: Held) => HeldLease,
    options: { renewAfterMs: number; logger: Logger; what: string },
  ) {
    this.heartbeat = new LeaseHeartbeat(lease, manager, { ...options, everyMs: HEARTBEAT_MS });
  }

  /** Runs the take `render` builds, and maps its row (if any) to what the run holds. */
  async take<Row>(render: (statement: Statement) => string, held: (row: Row) => Held): Promise<Held | null> {
    const statement = new Statement();
    const text = render(statement);
    const at = Date.now();
    const [row] = await queryRows<Row>(this.manager, text, statement.params);
    if (!row) return null;
    const taken = held(row);
    this.takenAt.set(taken, at);
    return taken;
  }

  /** One renewal of `held`'s lease (the heartbeat's statement, for one lease). */
  async renew(held: Held): Promise<void> {
    const statement = new Statement();
    await queryRows(this.manager, this.lease.renew(statement, [this.key(held)]), statement.params);
  }

  /** Gives `held`'s lease up, writing `set` (column → SQL expression of `statement`) with it. */
  async release(held: Held, set?: (statement: Statement) => Record<string, string>): Promise<void> {
    const statement = new Statement();
    await queryRows(this.manager, this.lease.release(statement, [this.key(held)], { set: set?.(statement) }), statement.params);
  }

  /** Runs `work` while the heartbeat keeps `held`'s lease alive. */
  async during<T>(held: Held, work: () => Promise<T>): Promise<T> {
    const { id, attempt } = this.key(held);
    // A lease taken elsewhere (no time noted) is renewed at the next beat.
    this.heartbeat.hold(id, attempt, this.takenAt.get(held) ?? 0);
    this.heartbeat.start();
    try {
      return await work();
    } finally {
      this.heartbeat.drop(id, attempt);
      if (this.heartbeat.size === 0) void this.heartbeat.stop();
    }
  }
}
