import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The migrations own the schema (synchronize is never on). This asks TypeORM what it would change
 * to make the migrated database fit the entities: any table or column statement means an entity
 * and the migrations disagree. Dropping a constraint or index is expected: checks, foreign keys and
 * indexes are invariants the migrations add and the entities do not restate.
 */
describe('database schema', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

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
