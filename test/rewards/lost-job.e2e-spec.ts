import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { CARD_ISSUANCE_QUEUE } from '@app/core';
import { RewardBackgroundJobs } from '@app/rewards';
import { eventually } from '../support/processes';
import { catalogPicks, fixedReward, fund } from '../support/rewards';
import { seedMerchant, startTestApp, startTestWorker, TestApp } from '../support/test-app';

/**
 * When Redis goes away in the middle of a job, or comes back empty while a worker still writes to
 * it, Bull can keep a job's record under its id while the job is in none of the queue's lists: it
 * never runs, and Bull adds nothing under an id it already holds. The sweeper must not be fooled
 * by such a husk, or the card stays PENDING for good (found by `npm run chaos`).
 */
describe('a job record Redis kept but will never run', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startTestApp();
  });
  afterAll(() => api.close());

  it('does not stop the sweeper from issuing the card', async () => {
    const dataSource = api.app.get(DataSource);
    const cards = api.app.get<Queue>(getQueueToken(CARD_ISSUANCE_QUEUE));
    const m = await seedMerchant(api);
    await fund(api, m, 100_000);
    const picks = await catalogPicks(api, m.key);
    const created = (await api.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward;
    const cardId: string = created.issuedCards[0].id;

    // The husk: the job's record stays, the job leaves the wait list. No worker has run yet.
    await eventually(() => cards.getJob(cardId));
    const waitList = (cards as unknown as { toKey(list: string): string }).toKey('wait'); // Bull's key, not in its typings
    expect(await cards.client.lrem(waitList, 0, cardId)).toBe(1);
    expect(await (await cards.getJob(cardId))!.getState()).toBe('stuck');
    // Old enough for the sweeper to count it as lost.
    await dataSource.query(`UPDATE reward_cards SET created_at = now() - interval '5 minutes' WHERE id = $1`, [cardId]);

    const worker = await startTestWorker(api);
    try {
      await worker.app.get(RewardBackgroundJobs).enqueueOrphans();
      const status = await eventually(async () => {
        const [row] = await dataSource.query(`SELECT status FROM reward_cards WHERE id = $1`, [cardId]);
        return row.status !== 'PENDING' && row.status;
      });
      expect(status).toBe('ISSUED');
    } finally {
      await worker.close();
    }
  });
});
