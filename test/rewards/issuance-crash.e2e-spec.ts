import { DataSource } from 'typeorm';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier, SandboxRedisOrderBook, SupplierError, SupplierGate } from '@app/catalog';
import { RedisClient } from '@app/core';
import { CardIssuanceService, RewardLifecycle } from '@app/rewards';
import { IssuanceLease } from '../../libs/rewards/src/lifecycle/issuance-lease';
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
      const crashing = new CardIssuanceService(dying, worker.app.get(SupplierGate), worker.app.get(IssuanceLease), worker.app.get(RewardLifecycle));
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
      const issuance = new CardIssuanceService(timingOut, patient, worker.app.get(IssuanceLease), worker.app.get(RewardLifecycle));
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

  it('workers SIGKILLed again and again between mark and settle: each card ends once, one supplier order per card, ledger intact', async () => {
    const m = await seedMerchant(api);
    await fund(api, m, 10_000_000);
    const picks = await catalogPicks(api, m.key);
    // Slow enough that a kill finds cards at the supplier; the sandbox's order book is in Redis under
    // this prefix, shared by every worker process, like a real supplier's.
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      QUEUE_PREFIX: api.config.queuePrefix,
      SANDBOX_SUPPLIER_LATENCY_MS: '300',
      SANDBOX_SUPPLIER_JITTER_MS: '400',
      ISSUANCE_CONCURRENCY: '16',
    };
    const redis = api.app.get(RedisClient);
    const ordersKey = SandboxRedisOrderBook.ordersKey(redis);

    const CARDS = 120;
    const rewards: { id: string; failing: boolean }[] = [];
    for (let i = 0; i < CARDS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const failing = (i + j) % 10 === 7; // a permanent refusal now and then: FAILED, value back
          const res = await api.api.as(m.key).post('/v1/rewards', fixedReward(failing ? picks.failingFixed : picks.fixedUsd));
          expect(res.status).toBe(201);
          return { id: res.body.reward.id as string, failing };
        }),
      );
      for (const reward of batch) rewards.push(reward);
    }

    /** Cards a run holds (marked, at the supplier) and not settled, split by whether the supplier has placed the order. */
    const inFlight = async () => {
      const marked: { id: string }[] = await dataSource.query(
        `SELECT id FROM reward_cards WHERE account_id = $1 AND status = 'PENDING' AND issuing_since IS NOT NULL`,
        [m.accountId],
      );
      if (marked.length === 0) return { beforeOrder: 0, afterOrder: 0 };
      const orders = await redis.hmget(ordersKey, ...marked.map((c) => c.id));
      const afterOrder = orders.filter(Boolean).length;
      return { beforeOrder: marked.length - afterOrder, afterOrder };
    };

    let killedBeforeOrder = 0;
    let killedAfterOrder = 0;
    for (let kill = 0; kill < 6; kill++) {
      const worker = spawnBuilt('worker', [], env);
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      // Kill the moment some card has its order at the supplier and is not settled yet.
      const seen = await eventually(async () => {
        const state = await inFlight();
        return state.afterOrder > 0 ? state : undefined;
      }, 60_000, 10);
      worker.kill('SIGKILL');
      await exited;
      const after = await inFlight();
      expect(after.afterOrder).toBeGreaterThan(0);
      killedBeforeOrder += after.beforeOrder;
      killedAfterOrder += after.afterOrder;
      expect(seen.afterOrder).toBeGreaterThan(0);
    }
    // Both crash points were hit: dying with the supplier not yet asked for sure, and dying with the
    // order placed but not settled (the supplier's answer lost).
    expect(killedBeforeOrder).toBeGreaterThan(0);
    expect(killedAfterOrder).toBeGreaterThan(0);

    const last = spawnBuilt('worker', [], env);
    try {
      await eventually(async () => (await capturesPerCard(dataSource, m.accountId)).every((c: any) => c.status !== 'PENDING'), 120_000, 500);
    } finally {
      last.kill('SIGTERM');
    }

    const cards: { id: string; status: string; captures: number }[] = await capturesPerCard(dataSource, m.accountId);
    expect(cards).toHaveLength(CARDS);
    const releases: { related_id: string; n: number }[] = await dataSource.query(
      `SELECT related_id, count(*)::int AS n FROM wallet_transactions WHERE account_id = $1 AND kind = 'RELEASE' GROUP BY related_id`,
      [m.accountId],
    );
    const released = new Map(releases.map((r) => [r.related_id, r.n]));
    const failing = rewards.filter((r) => r.failing).length;
    expect(cards.filter((c) => c.status === 'ISSUED')).toHaveLength(CARDS - failing);
    expect(cards.filter((c) => c.status === 'FAILED')).toHaveLength(failing);
    for (const card of cards) {
      // Exactly one outcome in the ledger: one capture for an issued card, one release for a failed one.
      expect([card.status, card.captures, released.get(card.id) ?? 0]).toEqual(
        card.status === 'ISSUED' ? ['ISSUED', 1, 0] : ['FAILED', 0, 1],
      );
    }
    // One supplier order per issued card, none for a refused one, and no order ever asked for again
    // with a reference that had one (recovery looked it up instead).
    // The earlier tests of this file issued cards into the same order book (the app's queue prefix):
    // only this merchant's cards are counted.
    const ours = new Set(cards.map((c) => c.id));
    const orders = await redis.hgetall(ordersKey);
    for (const card of cards) expect([card.id, card.status, card.id in orders]).toEqual([card.id, card.status, card.status === 'ISSUED']);
    expect(Object.keys(orders).filter((id) => ours.has(id))).toHaveLength(CARDS - failing);
    expect(Object.keys(await redis.hgetall(SandboxRedisOrderBook.repeatsKey(redis))).filter((id) => ours.has(id))).toEqual([]);

    for (const reward of rewards) {
      const res = await api.api.as(m.key).get(`/v1/rewards/${reward.id}`);
      expect(res.body.reward.status).toBe(reward.failing ? 'CANCELED' : 'REDEEMED');
    }
    const wallet = await expectLedgerInvariants(dataSource, m.accountId);
    expect(wallet).toMatchObject({ available: 10_000_000 - (CARDS - failing) * picks.fixedUsd.valueCents, reserved: 0 });
  }, 300_000);
});
