import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` in one REPEATABLE READ, READ ONLY transaction, so every statement it makes sees the
 * same committed state: a reward and its cards as one transaction left them, a page and its total
 * as of one moment (docs/pagination.md, One snapshot). One BEGIN and one COMMIT more than a plain read.
 */
export async function readSnapshot<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const result = await work(runner.manager);
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await runner.release();
  }
}
