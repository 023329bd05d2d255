import { DataSource } from 'typeorm';
import { choiceReward, startWithFundedMerchant } from '../support/rewards';
import { REWARD_LOCK_TIMEOUT_MS } from '../../libs/rewards/src/lifecycle/reward-lifecycle.service';
import { SeededMerchant, TestApp } from '../support/test-app';

/**
 * A cancel waits for the reward's row lock for at most 10 s (REWARD_LOCK_TIMEOUT_MS; shortened here); then it answers 503 and changes nothing,
 * so the client retries instead of hanging. (No supplier call holds that lock any more; this guards
 * against any other long transaction.)
 */
describe('cancel of a reward another transaction holds', () => {
  let t: TestApp;
  let m: SeededMerchant;

  beforeAll(async () => {
    // The product waits 10 s for the lock; here 300 ms, so the test shows the same refusal without sitting through it.
    ({ t, m } = await startWithFundedMerchant(10_000, { overrides: [{ provide: REWARD_LOCK_TIMEOUT_MS, useValue: 300 }] }));
  });
  afterAll(() => t.close());

  it('answers 503 after the lock wait and leaves the reward and the wallet as they were', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000));
    const id = sent.body.reward.id;
    const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
    // Stands in for any transaction that keeps the reward locked for long.
    const holder = t.app.get(DataSource).createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT id FROM rewards WHERE id = $1 FOR UPDATE', [id]);
      const busy = await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
      expect(busy.status).toBe(503);
      expect(busy.body).toMatchObject({ error: 'internal', message: expect.stringContaining('busy') });
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    const after = await t.api.as(m.key).get(`/v1/rewards/${id}`);
    expect(after.body.reward.status).toBe('SENT');
    expect(after.body.reward.remainingValueCents).toBe(2_000);
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet).toEqual(before);
    // Once the lock is gone, the same cancel goes through.
    expect((await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`)).status).toBe(200);
  }, 30_000);
});
