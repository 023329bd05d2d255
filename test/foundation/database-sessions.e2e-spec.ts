import { DataSource } from 'typeorm';
import { WEBHOOK_BOOKKEEPING_DB } from '../../libs/webhooks/src/delivery/webhook-bookkeeping';
import { startTestApp, startTestWorker, TestApp } from '../support/test-app';

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
        .query(`SELECT current_setting('jit') AS jit, current_setting('synchronous_commit') AS sync`);
      expect(bookkeeping).toEqual({ jit: 'off', sync: 'off' });
    } finally {
      await worker.close();
    }
  });
});
