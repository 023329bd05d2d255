import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

const SCHEMA_DUMP = join(__dirname, 'schema.sql');

/**
 * The migrations own the schema (synchronize is never on), and test/foundation/schema.sql is what they
 * make: `pg_dump --schema-only` of a database the service created and migrated, owners and grants
 * included. A migration that changes the schema updates that file in the same commit:
 * `UPDATE_SCHEMA_DUMP=1 npx jest test/foundation/schema.e2e-spec.ts` rewrites it, and the diff is
 * reviewed with the migration (docs/operations.md, Migrations).
 */
describe('database schema', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('a database the service migrates dumps exactly as test/foundation/schema.sql', async () => {
    const dumped = await schemaDump(process.env.DATABASE_URL!);
    if (process.env.UPDATE_SCHEMA_DUMP) writeFileSync(SCHEMA_DUMP, dumped);
    expect(dumped).toBe(readFileSync(SCHEMA_DUMP, 'utf8'));
  });

  /**
   * Asks TypeORM what it would change to make the migrated database fit the entities: any table or
   * column statement means an entity and the migrations disagree. Dropping a constraint or index is
   * expected: checks, foreign keys and indexes are invariants the migrations add and the entities do
   * not restate.
   */
  it('the migrated schema matches every entity', async () => {
    const dataSource = t.app.get(DataSource);
    expect(dataSource.options.synchronize).toBe(false);
    const pending = await dataSource.driver.createSchemaBuilder().log();
    const drift = pending.upQueries
      .map((q) => q.query)
      .filter((sql) => !/^ALTER TABLE "\w+" DROP CONSTRAINT "\w+"$|^DROP INDEX "public"\."\w+"$/.test(sql));
    expect(drift).toEqual([]);
    expect(dataSource.entityMetadatas.length).toBeGreaterThanOrEqual(4);
  });

  it('no migration is left to run', async () => {
    expect(await t.app.get(DataSource).showMigrations()).toBe(false);
  });
});

/**
 * `pg_dump --schema-only` of the database, without the lines pg_dump varies by itself: its version
 * lines, the random key of the \restrict and \unrestrict lines (pg_dump 15.14, 16.10, 17.6 and later)
 * and the transaction_timeout setting (pg_dump 17 and later). The database's name appears nowhere in
 * such a dump; the role names are fixed (docs/operations.md, Database roles). PG_DUMP names another
 * pg_dump binary than the one on PATH (it must not be older than the server).
 */
async function schemaDump(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.env.PG_DUMP ?? 'pg_dump', ['--schema-only', `--dbname=${url}`], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout
    .split('\n')
    .filter((line) => !/^\\(un)?restrict |^-- Dumped (from database|by pg_dump) version |^SET transaction_timeout = /.test(line))
    .join('\n');
}
