import type { Logger } from '@nestjs/common';

/**
 * A lease on one row, so that one run at a time works on it (docs/operations.md, Leases): a card at
 * the supplier, an e-mail with the SMTP server. The times are the database's (`clock_timestamp()`),
 * shared by every worker.
 *
 * - `take` returns what the run now holds, with its attempt number, or null when the row is settled
 *   or another run's lease is still live;
 * - `renew` keeps the lease while the run works, so a slow answer is not taken for a dead run;
 * - `release` gives it up after a failure, so the retry need not wait for it to run out.
 *
 * Renew and release touch the lease of the holder's own attempt only: a run whose lease ran out and
 * was taken over can never take the row back. The SQL of each lease is in its table's repository.
 */
export interface Lease<Held, ReleaseNote extends unknown[] = []> {
  take(id: string): Promise<Held | null>;
  renew(held: Held): Promise<void>;
  release(held: Held, ...note: ReleaseNote): Promise<void>;
}

/**
 * Runs `work` while renewing the lease on `held` every `everyMs`. A failed renewal is logged and
 * only lets the lease run out sooner: the work goes on.
 */
export async function whileRenewed<Held extends { id: string }, T>(
  lease: { renew(held: Held): Promise<void> },
  held: Held,
  everyMs: number,
  logger: Logger,
  work: () => Promise<T>,
): Promise<T> {
  const timer = setInterval(() => {
    lease.renew(held).catch((error: unknown) => logger.warn({ id: held.id, err: error }, 'lease renewal failed; it runs out sooner'));
  }, everyMs);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
