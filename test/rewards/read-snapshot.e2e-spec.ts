import { DataSource } from 'typeorm';
import { KeyRing } from '@app/core';
import { cardCredentialsContext } from '../../libs/rewards/src/lifecycle/reward.repository';
import { CatalogPicks, catalogPicks, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * A GET shows one committed state (docs/pagination.md, One snapshot): while another transaction
 * flips a reward and its card together (SENT with a PENDING card, REDEEMED with an ISSUED card),
 * no detail or list read shows the card of one state beside the reward of the other.
 * The API app runs no worker, so nothing but the flipping writer touches the reward.
 */
describe('reward reads are one snapshot', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let m: SeededMerchant;
  let picks: CatalogPicks;

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
    picks = await catalogPicks(t, m.key);
  });
  afterAll(() => t.close());

  /** Flips the reward first and the card a moment later, in one transaction, until told to stop. */
  async function flipper(rewardId: string, stop: { done: boolean }): Promise<number> {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    // An issued card's credentials are always sealed (docs/secrets.md): seal an empty list, as issuance would.
    const [card]: { id: string; account_id: string }[] = await runner.query(`SELECT id, account_id FROM reward_cards WHERE reward_id = $1`, [rewardId]);
    const sealed = t.app.get(KeyRing).encrypt('[]', cardCredentialsContext(card.id, card.account_id));
    let flips = 0;
    try {
      while (!stop.done) {
        const issue = flips % 2 === 0;
        await runner.startTransaction();
        await runner.query(
          `UPDATE rewards SET status = $2, remaining_value_cents = CASE WHEN $2 = 'REDEEMED' THEN 0 ELSE face_value_cents END WHERE id = $1`,
          [rewardId, issue ? 'REDEEMED' : 'SENT'],
        );
        await runner.query('SELECT pg_sleep(0.002)');
        if (issue) {
          await runner.query(`UPDATE reward_cards SET status = 'ISSUED', credentials = $2, issued_at = now() WHERE reward_id = $1`, [rewardId, sealed]);
        } else {
          await runner.query(`UPDATE reward_cards SET status = 'PENDING', credentials = NULL, issued_at = NULL WHERE reward_id = $1`, [rewardId]);
        }
        await runner.commitTransaction();
        flips += 1;
      }
    } finally {
      await runner.release();
    }
    return flips;
  }

  it('detail and list reads never show an ISSUED card on a SENT reward, nor a PENDING card on a REDEEMED one', async () => {
    const created = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd, { externalId: 'snapshot' }));
    expect(created.status).toBe(201);
    const id = created.body.reward.id;
    const stop = { done: false };
    const writing = flipper(id, stop);
    const seen: string[] = [];
    const check = (reward: any) => {
      const state = `${reward.status}/${reward.issuedCards.map((c: any) => c.status).join(',')}`;
      seen.push(state);
      expect(['SENT/PENDING', 'REDEEMED/ISSUED']).toContain(state);
    };
    try {
      const reader = async (list: boolean) => {
        for (let i = 0; i < 150; i++) {
          if (list) {
            const res = await t.api.as(m.readKey).get('/v1/rewards?external_id=snapshot');
            check(res.body.rewards[0]);
          } else {
            check((await t.api.as(m.readKey).get(`/v1/rewards/${id}`)).body.reward);
          }
        }
      };
      await Promise.all([reader(false), reader(false), reader(true), reader(true)]);
    } finally {
      stop.done = true;
    }
    expect(await writing).toBeGreaterThan(20);
    // Both states were seen, so the reads really raced the writer.
    expect(new Set(seen)).toEqual(new Set(['SENT/PENDING', 'REDEEMED/ISSUED']));
  }, 120_000);
});
