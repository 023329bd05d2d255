import { DataSource } from 'typeorm';
import { readSnapshot } from '@app/core';
import { WEBHOOK_BOOKKEEPING_DB } from '../../libs/webhooks/src/delivery/webhook-bookkeeping';
import { adminDataSource } from '../support/database-admin';
import { isolatedDatabase, seedMerchant, startTestApp, startTestWorker, TestApp } from '../support/test-app';

/**
 * The service's sessions run without JIT (docs/operations.md, Database sessions): a list page whose
 * estimate crossed jit_above_cost spent ~45 ms compiling a 2 ms query.
 */
describe('database sessions', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('run with jit off, in the main pool and in the webhook bookkeeping pool (which also commits without waiting for the disk)', async () => {
    t = await startTestApp();
    const worker = await startTestWorker(t);
    try {
      const [main] = await t.app.get(DataSource).query(`SELECT current_setting('jit') AS jit`);
      expect(main.jit).toBe('off');
      const [bookkeeping] = await worker.app
        .get<DataSource>(WEBHOOK_BOOKKEEPING_DB)
        .query(
          `SELECT current_setting('jit') AS jit, current_setting('synchronous_commit') AS sync, current_setting('enable_bitmapscan') AS bitmap, current_user AS role`,
        );
      // And as the service's runtime role, as every session of the service (docs/operations.md, Database roles).
      expect(bookkeeping).toEqual({ jit: 'off', sync: 'off', bitmap: 'off', role: 'rewards_app' });
    } finally {
      await worker.close();
    }
  });

  it('read snapshots walk an account\'s rows in index order even when the statistics say it has few', async () => {
    const isolated = await startTestApp({ env: await isolatedDatabase() });
    try {
      const dataSource = isolated.app.get(DataSource);
      const big = await seedMerchant(isolated);
      const small = await seedMerchant(isolated);
      // A burst of writes that autovacuum has not analyzed yet (it is kept off here, so the test does not race it).
      const owner = await adminDataSource(isolated.config.databaseUrl); // only the owner role may alter a table
      await owner.query(`ALTER TABLE rewards SET (autovacuum_enabled = false)`);
      await owner.destroy();
      const insert = (accountId: string, count: number, tag: string) =>
        dataSource.query(
          `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email, recipient_first_name, source)
           SELECT 'rw_' || $3 || g, $1, 'CHOICE', 'SENT', 500, 500, 'USD', 'r' || g || '@example.test', 'Ada', 'api' FROM generate_series(1, $2::int) AS g`,
          [accountId, count, tag],
        );
      await insert(small.accountId, 1_000, 'small');
      await insert(big.accountId, 10_000, 'big');

      // The shape of a list page (libs/core/src/pagination/list-page.ts): rows up to a seq found first, newest first.
      const page = `EXPLAIN (FORMAT JSON) SELECT * FROM rewards t WHERE t.account_id = $1
                      AND t.seq <= (SELECT s.seq FROM rewards s WHERE s.account_id = $1 ORDER BY s.seq DESC LIMIT 1)
                    ORDER BY t.seq DESC LIMIT 100`;
      const planOf = (rows: { 'QUERY PLAN': unknown }[]) => JSON.stringify(rows[0]['QUERY PLAN']);
      // A plain session underestimates the account and reads all of it (a bitmap scan, then a sort)...
      expect(planOf(await dataSource.query(page, [big.accountId]))).toContain('Bitmap Heap Scan');
      // ...a read snapshot walks the (account, seq) index and stops after 100 rows.
      const inSnapshot = planOf(await readSnapshot(dataSource, (manager) => manager.query(page, [big.accountId])));
      expect(inSnapshot).not.toContain('Bitmap');
      expect(inSnapshot).not.toContain('Seq Scan');
      expect(inSnapshot).not.toContain('Gather');
      expect(inSnapshot).not.toContain('"Sort"');
      expect(inSnapshot).toContain('rewards_account_seq_idx');
    } finally {
      await isolated.close();
    }
  });
});
