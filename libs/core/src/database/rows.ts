import type { EntityManager } from 'typeorm';

/**
 * The rows of any statement, RETURNING included. TypeORM's `query()` answers `[rows, rowCount]`
 * for UPDATE and DELETE but plain rows for SELECT and INSERT; reading an UPDATE's result as rows
 * gives `undefined` ids, and `findOneBy({ id: undefined })` then matches any row. Use this instead.
 */
export async function queryRows<T = Record<string, any>>(manager: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  const owned = !manager.queryRunner;
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    return (await runner.query(sql, params, true)).records as T[];
  } finally {
    if (owned) await runner.release();
  }
}
