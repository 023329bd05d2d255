import { DataSource } from 'typeorm';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier, SupplierError, SupplierGate } from '@app/catalog';
import { RedisClient } from '@app/core';
import { CardIssuanceService, RewardLifecycle } from '@app/rewards';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually, spawnBuilt } from '../support/processes';
import { catalogPicks, fixedReward, fund } from '../support/rewards';
import { seedMerchant, startTestApp, startTestWorker, TestApp } from '../support/test-app';

const countReleases = async (dataSource: DataSource, cardId: string) =>
  (await dataSource.query(`SELECT count(*)::int AS n FROM wallet_transactions WHERE related_id = $1 AND kind = 'RELEASE'`, [cardId]))[0].n;

/** The number of CAPTURE rows per card of an account: exactly one each, whatever happened. */
async function capturesPerCard(dataSource: DataSource, accountId: string) {
  return dataSource.query(
    `SELECT c.id, c.status, count(t.id)::int AS captures
       FROM reward_cards c LEFT JOIN wallet_transactions t ON t.related_id = c.id AND t.kind = 'CAPTURE'
      WHERE c.account_id = $1 GROUP BY c.id, c.status`,
    [accountId],
  );
}

/**
 * The API app runs no worker side; the worker sides started here have queues of their own, so the
 * jobs of the sends are left alone and each test issues the card itself.
 */
describe('card issuance survives a dying worker', () => {
  let api: TestApp;
  let dataSource: DataSource;

  beforeAll(async () => {
    api = await startTestApp();
    dataSource = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  it('dying after the supplier issued but before commit: the retry gets the same card and captures once', async () => {
    const worker = await startTestWorker(api, { queuePrefix: `${api.config.queuePrefix}-other` });
    try {
      const m = await seedMerchant(api);
      await fund(api, m, 100_000);
      const picks = await catalogPicks(api, m.key);
      const created = (await api.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward;
      const cardId = created.issuedCards[0].id;

      const real = worker.app.get<GiftCardSupplier>(GIFT_CARD_SUPPLIER);
      const issuedBySupplier: string[] = [];
      const dying: GiftCardSupplier = {
        listCatalog: () => real.listCatalog(),
        getCard: (reference) => real.getCard(reference),
        issueCard: async (request) => {
          const card = await real.issueCard(request);
          issuedBySupplier.push(JSON.stringify(card.credentials));
          throw new Error('worker died after the supplier answered'); // transient: the transaction rolls back
        },
      };
      const crashing = new CardIssuanceService(dataSource, dying, worker.app.get(RewardLifecycle), worker.app.get(SupplierGate));
      await expect(crashing.issue(cardId)).rejects.toThrow('worker died');
      expect((await capturesPerCard(dataSource, m.accountId))[0]).toMatchObject({ status: 'PENDING', captures: 0 });

      // The supplier may have issued the card: a cancel now must not refund it.
      const cancel = await api.api.as(m.key).post(`/v1/rewards/${created.id}/cancel`);
      expect(cancel.status).toBe(422);
      expect(cancel.body.message).toMatch(/being issued/);
      expect(await countReleases(dataSource, cardId)).toBe(0);

      expect(await worker.app.get(CardIssuanceService).issue(cardId)).toBe('issued');
      expect(await worker.app.get(CardIssuanceService).issue(cardId)).toBe('skipped');
      const card = (await api.api.as(m.key).get(`/v1/rewards/${created.id}?include_credentials=true`)).body.reward.issuedCards[0];
      expect(JSON.stringify(card.credentials)).toBe(issuedBySupplier[0]);
      expect(await capturesPerCard(dataSource, m.accountId)).toEqual([{ id: cardId, status: 'ISSUED', captures: 1 }]);
      expect(await countReleases(dataSource, cardId)).toBe(0);
      await expectLedgerInvariants(dataSource, m.accountId);
    } finally {
      await worker.close();
    }
  });

  it('a supplier that keeps timing out never fails the card: it stays PENDING, nothing refunded, and issues later', async () => {
    const worker = await startTestWorker(api, { queuePrefix: `${api.config.queuePrefix}-other` });
    try {
      const m = await seedMerchant(api);
      await fund(api, m, 100_000);
      const picks = await catalogPicks(api, m.key);
      const created = (await api.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward;
      const cardId = created.issuedCards[0].id;
      const real = worker.app.get<GiftCardSupplier>(GIFT_CARD_SUPPLIER);
      const timingOut: GiftCardSupplier = {
        listCatalog: () => real.listCatalog(),
        getCard: (reference) => real.getCard(reference),
        issueCard: async () => Promise.reject(new SupplierError('timeout after 30 s', false)),
      };
      // A circuit that never opens, so every attempt reaches the (timing-out) supplier.
      const patient = new SupplierGate(worker.app.get(RedisClient), api.config, { failureThreshold: 1_000 });
      const issuance = new CardIssuanceService(dataSource, timingOut, worker.app.get(RewardLifecycle), patient);
      for (let attempt = 0; attempt < 10; attempt++) await expect(issuance.issue(cardId)).rejects.toThrow('timeout');
      const still = (await api.api.as(m.key).get(`/v1/rewards/${created.id}`)).body.reward;
      expect([still.status, still.issuedCards[0].status]).toEqual(['SENT', 'PENDING']);
      expect(await countReleases(dataSource, cardId)).toBe(0);
      expect(await worker.app.get(CardIssuanceService).issue(cardId)).toBe('issued');
      await expectLedgerInvariants(dataSource, m.accountId);
    } finally {
      await worker.close();
    }
  });

  it('a worker process killed mid-issuance and a new one started: every card issued once, ledger intact', async () => {
    const m = await seedMerchant(api);
    await fund(api, m, 1_000_000);
    const picks = await catalogPicks(api, m.key);
    const env = { DATABASE_URL: process.env.DATABASE_URL!, QUEUE_PREFIX: api.config.queuePrefix };

    const first = spawnBuilt('worker', [], env);
    const rewards: string[] = [];
    for (let i = 0; i < 24; i++) rewards.push((await api.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).body.reward.id);
    // Kill it as soon as some cards are issued and others are not: some jobs are mid-flight.
    await eventually(async () => {
      const issued = (await capturesPerCard(dataSource, m.accountId)).filter((c: any) => c.status === 'ISSUED').length;
      return issued > 0;
    }, 30_000, 20);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const before = (await capturesPerCard(dataSource, m.accountId)).filter((c: any) => c.status === 'ISSUED').length;
    expect(before).toBeLessThan(24);

    const second = spawnBuilt('worker', [], env);
    try {
      await eventually(async () => (await capturesPerCard(dataSource, m.accountId)).every((c: any) => c.status === 'ISSUED'), 60_000, 250);
    } finally {
      second.kill('SIGTERM');
    }
    const cards = await capturesPerCard(dataSource, m.accountId);
    expect(cards).toHaveLength(24);
    expect(cards.every((c: any) => c.captures === 1)).toBe(true);
    for (const id of rewards) expect((await api.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.status).toBe('REDEEMED');
    const wallet = await expectLedgerInvariants(dataSource, m.accountId);
    expect(wallet).toMatchObject({ available: 1_000_000 - 24 * picks.fixedUsd.valueCents, reserved: 0 });
  }, 120_000);
});
