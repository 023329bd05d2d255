import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource, Logger as TypeOrmLogger } from 'typeorm';

/**
 * Golden SQL (docs/testing.md, Golden SQL): the statements of the hot paths are committed as
 * rendered SQL under libs/rewards/sql, so a change to what they send shows in review as SQL. A test
 * renders them with fixed inputs and fails when they differ from the committed file;
 * `npm run sql:golden` (UPDATE_SQL_GOLDEN=1) writes them anew. Ids and values are parameters, so
 * the text depends only on the shape of the operation.
 */
const ROOT = join(__dirname, '../..');
const UPDATE = process.env.UPDATE_SQL_GOLDEN === '1';

/**
 * Compares `variants` (title, statements) with `dir`/`file` (libs/rewards/sql unless told, e.g.
 * libs/webhooks/sql), or writes it under UPDATE_SQL_GOLDEN=1.
 */
export function expectGolden(file: string, variants: [title: string, sql: string | string[]][], dir = 'libs/rewards/sql'): void {
  const rendered = variants
    .map(([title, sql]) => {
      const statements = typeof sql === 'string' ? [sql] : sql;
      if (statements.length === 0) throw new Error(`golden ${file}: "${title}" rendered no statement`);
      return `-- ${title}\n${statements.map((statement) => `${statement};\n`).join('')}`;
    })
    .join('\n');
  const path = join(ROOT, dir, file);
  if (UPDATE) writeFileSync(path, rendered);
  let committed = '';
  try {
    committed = readFileSync(path, 'utf8');
  } catch {
    // compared below: a missing file differs from any statement
  }
  if (committed !== rendered) {
    throw new Error(
      `${dir}/${file} differs from the SQL the code renders now. If the change is intended, ` +
        `run \`npm run sql:golden\` and commit the regenerated file (review it as part of the change).`,
    );
  }
}

/** A statement that writes: INSERT, UPDATE, DELETE, or a WITH holding them (a locking SELECT ... FOR UPDATE is a read). */
export const writes = (sql: string): boolean => /^\s*(INSERT|UPDATE|DELETE|WITH)\b/i.test(sql);

/**
 * The statements `work` sends through `dataSource`, in order, as TypeORM hands them to the driver
 * (its query logger sees every one, whatever the log level), kept when `keep` says so. Transaction
 * control (START TRANSACTION, COMMIT, ROLLBACK) is left out. Run nothing else on the data source
 * meanwhile: everything it sends is captured.
 */
export async function captureStatements(dataSource: DataSource, work: () => Promise<unknown>, keep: (sql: string) => boolean = writes): Promise<string[]> {
  const statements: string[] = [];
  const logger = dataSource.logger;
  const capturing: TypeOrmLogger = {
    logQuery: (query, parameters, runner) => {
      if (!/^\s*(START TRANSACTION|BEGIN|COMMIT|ROLLBACK)\b/i.test(query) && keep(query)) statements.push(query.trim());
      logger.logQuery(query, parameters, runner);
    },
    logQueryError: (...args) => logger.logQueryError(...args),
    logQuerySlow: (...args) => logger.logQuerySlow(...args),
    logSchemaBuild: (...args) => logger.logSchemaBuild(...args),
    logMigration: (...args) => logger.logMigration(...args),
    log: (...args) => logger.log(...args),
  };
  Object.assign(dataSource, { logger: capturing });
  try {
    await work();
  } finally {
    Object.assign(dataSource, { logger });
  }
  return statements;
}
