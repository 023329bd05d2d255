import { DataSource } from 'typeorm';
import { WEBHOOK_BOOKKEEPING_DB, WebhookRelay } from '@app/webhooks';
import { AttemptRecorder } from '../../libs/webhooks/src/delivery/attempt-recorder';
import { DeliveryLeases } from '../../libs/webhooks/src/delivery/delivery-leases';
import { DeliverySweep } from '../../libs/webhooks/src/delivery/delivery-sweep';
import { startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/**
 * The webhook pipeline's bookkeeping (fan-out, claims, attempt records) commits without waiting for
 * the disk; everything else, money first, still waits (docs/webhooks.md, Throughput).
 */
describe('webhook bookkeeping connections', () => {
  let t: TestApp;
  let worker: TestWorker;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
  });

  const synchronousCommit = async (dataSource: DataSource): Promise<string> =>
    (await dataSource.query(`SHOW synchronous_commit`))[0].synchronous_commit;

  it('the fan-out, claims and attempt records commit without waiting for the disk; sends, issuance and the rest still wait', async () => {
    expect(await synchronousCommit(worker.app.get<DataSource>(WEBHOOK_BOOKKEEPING_DB))).toBe('off');
    expect(await synchronousCommit(worker.app.get(DataSource))).toBe('on');
    expect(await synchronousCommit(t.app.get(DataSource))).toBe('on');
    // The relay (fan-out), the claims and lease renewals, the recorder and the sweep use those connections.
    const bookkeeping = worker.app.get<DataSource>(WEBHOOK_BOOKKEEPING_DB);
    for (const part of [WebhookRelay, DeliveryLeases, AttemptRecorder, DeliverySweep]) {
      expect((worker.app.get(part) as unknown as { dataSource: DataSource }).dataSource).toBe(bookkeeping);
    }
  });
});
