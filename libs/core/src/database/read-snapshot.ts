import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * Runs `work` in one REPEATABLE READ, READ ONLY transaction, so every statement it makes sees the
 * same committed state: a reward and its cards as one transaction left them, a page and its total
 * as of one moment (docs/pagination.md, One snapshot). One BEGIN and one COMMIT more than a plain read.
 *
 * These reads take the first rows of an index in order (a page) or look rows up by key, so they run
 * with bitmap and sequential scans off and without parallel workers: when the planner underestimates
 * an account's rows (statistics not yet refreshed after a burst of writes, or one merchant far larger
 * than the average), a bitmap or a parallel sequential scan reads and sorts every row of the account
 * to return a page of 100. Every table they read has the index they need.
 */
/** The planner settings of a snapshot read (above), each a SET LOCAL after its BEGIN. */
export const SNAPSHOT_SETTINGS = ['SET LOCAL enable_bitmapscan = off', 'SET LOCAL enable_seqscan = off', 'SET LOCAL max_parallel_workers_per_gather = 0'];

export async function readSnapshot<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  try {
    // Index scans in order, not in parallel (docs/operations.md, Database sessions); one round trip for all four statements.
    return await inTransaction(runner, ['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', ...SNAPSHOT_SETTINGS].join('; '), work);
  } finally {
    await runner.release();
  }
}

/** `work` on `runner` between `begin` (a BEGIN and its SET LOCALs, one round trip) and COMMIT, rolled back if it throws. */
export async function inTransaction<T>(runner: QueryRunner, begin: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  await runner.query(begin);
  return inOpenTransaction(runner, work);
}

/**
 * `work` in the transaction already open on `runner`, then COMMIT; ROLLBACK if it throws, unless
 * `abandon` says the connection is to be closed instead (closing it ends the transaction on the server).
 * A ROLLBACK after a statement that went unanswered would wait behind it on the same connection.
 */
export async function inOpenTransaction<T>(runner: QueryRunner, work: (manager: EntityManager) => Promise<T>, abandon?: (error: unknown) => boolean): Promise<T> {
  try {
    const result = await work(runner.manager);
    await runner.query('COMMIT');
    return result;
  } catch (error) {
    if (!abandon?.(error)) await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
