import { DataSource } from 'typeorm';
import { compactListCounts, readListTotals } from '@app/core';
import { RewardBackgroundJobs } from '@app/rewards';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { CatalogPicks, catalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { adminDataSource } from '../support/database-admin';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';

const STATUSES = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED'];

/** A small seeded generator, so a failing workload can be replayed from the seed it prints. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The kept counts behind `total` and the overview (docs/pagination.md, Totals) against real
 * count(*) after randomized workloads run by several clients at once: sends, bulk sends with invalid
 * items, sends the wallet cannot afford, cancels, recipients' picks (some failing at the supplier),
 * FIXED cards issued or failed, expiries swept by several workers, and compactions in between.
 */
describe('kept list counts under concurrent randomized workloads', () => {
  /** The service's clock (and its worker's), moved past the rewards' expiry once the workload is done. */
  const clock = new TestClock();
  let t: TestApp;
  let worker: TestWorker;
  let dataSource: DataSource;
  let picks: CatalogPicks;
  let merchants: SeededMerchant[];
  const seed = Number(process.env.LIST_COUNTS_SEED ?? Date.now() % 1_000_000);

  beforeAll(async () => {
    t = await startTestApp({ overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    merchants = [await seedMerchant(t), await seedMerchant(t)];
    for (const m of merchants) await fund(t, m, 5_000_000);
    picks = await catalogPicks(t, merchants[0].key);
  });
  afterAll(async () => {
    for (const m of merchants ?? []) await expectLedgerInvariants(dataSource, m.accountId);
    await worker?.close();
    await t?.close();
  });

  /** Real counts, by SQL, of everything the kept counts claim: per list, its total and its coarse and fine seq blocks. */
  async function realCounts(accountId: string): Promise<Record<string, number>> {
    const rows: { list: string; level: number; block: string; n: string }[] = await dataSource.query(
      `WITH seqd AS (
         SELECT 'rewards' AS list, seq FROM rewards WHERE account_id = $1
         UNION ALL SELECT 'rewards:' || status, seq FROM rewards WHERE account_id = $1
         UNION ALL SELECT 'wallet_transactions', seq FROM wallet_transactions WHERE account_id = $1
         UNION ALL SELECT 'wallet_transactions:' || currency, seq FROM wallet_transactions WHERE account_id = $1
       )
       SELECT list, 0 AS level, 0 AS block, count(*) AS n FROM seqd GROUP BY 1
       UNION ALL SELECT list, 1, seq >> 20, count(*) FROM seqd GROUP BY 1, 3
       UNION ALL SELECT list, 2, seq >> 12, count(*) FROM seqd GROUP BY 1, 3
       UNION ALL SELECT 'topups', 0, 0, count(*) FROM topups WHERE account_id = $1
       UNION ALL SELECT 'issued_cents', 0, 0, COALESCE(sum(amount_cents), 0) FROM reward_cards WHERE account_id = $1 AND status = 'ISSUED'
       UNION ALL SELECT 'issued_cents:' || currency, 0, 0, sum(amount_cents) FROM reward_cards WHERE account_id = $1 AND status = 'ISSUED' GROUP BY currency
       UNION ALL SELECT 'active_cents:' || currency, 0, 0, sum(remaining_value_cents) FROM rewards
                  WHERE account_id = $1 AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED') GROUP BY currency
       UNION ALL SELECT 'sent_cents:' || currency || ':' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 0, 0, sum(face_value_cents)
                   FROM rewards WHERE account_id = $1 GROUP BY 1`,
      [accountId],
    );
    return Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [`${r.list}@${r.level}:${r.block}`, Number(r.n)]));
  }

  /** The kept counts as the service reads them: folded rows plus pending changes (each at its fine block; total and coarse block derived). */
  async function keptCounts(accountId: string): Promise<Record<string, number>> {
    const rows: { list: string; level: number; block: string; n: string }[] = await dataSource.query(
      `SELECT list, level, block, sum(n) AS n FROM (
         SELECT list, level, block, n FROM list_counts WHERE account_id = $1
         UNION ALL SELECT list, 0, 0, n FROM list_count_changes WHERE account_id = $1
         UNION ALL SELECT list, 1, block >> 8, n FROM list_count_changes WHERE account_id = $1 AND block IS NOT NULL
         UNION ALL SELECT list, 2, block, n FROM list_count_changes WHERE account_id = $1 AND block IS NOT NULL
       ) AS kept GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
      [accountId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.list}@${r.level}:${r.block}`, Number(r.n)]));
  }

  async function workload(m: SeededMerchant, random: () => number, steps: number, sent: string[], tokens: string[]): Promise<void> {
    const api = t.api.as(m.key);
    const recipient = new RecipientClient(t);
    const any = <T>(list: T[]): T | undefined => (list.length ? list[Math.floor(random() * list.length)] : undefined);
    for (let i = 0; i < steps; i++) {
      const roll = random();
      if (roll < 0.3) {
        // A minute ahead of the service's clock, which the sweeps below move on: some expire during the workload, the rest after it.
        const expiresAt = random() < 0.3 ? new Date(clock.now().getTime() + 60_000).toISOString() : undefined;
        const res = await api.post('/v1/rewards', choiceReward(picks.fixedUsd.valueCents * 2, expiresAt ? { expiresAt } : {}));
        expect(res.status).toBe(201);
        sent.push(res.body.reward.id);
        tokens.push(tokenOf(res.body.redemptionUrl));
      } else if (roll < 0.4) {
        const item = random() < 0.5 ? picks.fixedUsd : picks.failingFixed;
        const res = await api.post('/v1/rewards', fixedReward(item));
        expect(res.status).toBe(201);
        sent.push(res.body.reward.id);
      } else if (roll < 0.5) {
        const items = Array.from({ length: 2 + Math.floor(random() * 5) }, (_, k) =>
          k === 1 ? choiceReward(0) : choiceReward(500 + Math.floor(random() * 2_000), { externalId: `bulk-${i}` }),
        );
        const res = await api.post('/v1/rewards/bulk', { rewards: items });
        expect(res.status).toBe(207);
        for (const result of res.body.results) if (result.ok) sent.push(result.rewardId);
      } else if (roll < 0.55) {
        // Beyond the wallet: refused, writes nothing.
        expect((await api.post('/v1/rewards', choiceReward(100_000_000))).status).toBe(402);
      } else if (roll < 0.7) {
        const id = any(sent);
        if (id) expect([200, 422, 503]).toContain((await api.post(`/v1/rewards/${id}/cancel`)).status);
      } else if (roll < 0.85) {
        const token = any(tokens);
        if (token) {
          const item = random() < 0.8 ? picks.fixedUsd : picks.failingFixed;
          expect([201, 404, 409, 410, 422, 503]).toContain((await recipient.pick(token, { utid: item.utid, amountCents: item.valueCents })).status);
        }
      } else if (roll < 0.9) {
        await compactListCounts(dataSource.manager, 1 + Math.floor(random() * 50));
      } else if (roll < 0.95) {
        clock.advance(20_000);
        await worker.app.get(RewardBackgroundJobs).expireDue(1 + Math.floor(random() * 5));
      } else {
        await api.get('/v1/rewards?page_size=5');
      }
    }
  }

  it('equal real counts, per list and per coarse and fine seq block, after concurrent workloads and compactions', async () => {
    // eslint-disable-next-line no-console
    console.log(`list counts workload seed: ${seed} (LIST_COUNTS_SEED to replay)`);
    const root = generator(seed);
    const sent = merchants.map(() => [] as string[]);
    const tokens = merchants.map(() => [] as string[]);
    // Three clients per merchant at once, each on its own stream of choices.
    await Promise.all(
      merchants.flatMap((m, k) => [0, 1, 2].map(() => workload(m, generator(Math.floor(root() * 2 ** 32)), 40, sent[k], tokens[k]))),
    );
    // Past every expiry set by the workload: the due rewards expire (several sweepers at once); every card settles.
    clock.advance(60_000);
    const sweeper = worker.app.get(RewardBackgroundJobs);
    await Promise.all([sweeper.expireDue(3), sweeper.expireDue(3), sweeper.expireDue(100)]);
    await sweeper.expireDue(1_000);
    await eventually(async () => {
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM reward_cards WHERE account_id = ANY($1) AND status = 'PENDING'`, [
        merchants.map((m) => m.accountId),
      ]);
      return n === 0;
    }, 30_000);

    // The workload reached every kind of transition it is meant to check.
    const [{ seen }] = await dataSource.query(`SELECT array_agg(DISTINCT status) AS seen FROM rewards WHERE account_id = ANY($1)`, [
      merchants.map((m) => m.accountId),
    ]);
    expect(seen).toEqual(expect.arrayContaining(['SENT', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED']));

    for (const m of merchants) {
      const real = await realCounts(m.accountId);
      expect(await keptCounts(m.accountId)).toEqual(real);

      // What clients see: each list's total, and the overview.
      const api = t.api.as(m.readKey);
      const [{ n: all }] = await dataSource.query(`SELECT count(*)::int AS n FROM rewards WHERE account_id = $1`, [m.accountId]);
      expect(all).toBeGreaterThan(10);
      expect((await api.get('/v1/rewards?page_size=1')).body.total).toBe(all);
      for (const status of STATUSES) {
        const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM rewards WHERE account_id = $1 AND status = $2`, [m.accountId, status]);
        expect({ status, total: (await api.get(`/v1/rewards?page_size=1&status=${status}`)).body.total }).toEqual({ status, total: n });
      }
      const [stats] = await dataSource.query(
        `SELECT count(*)::int AS "totalRewards",
                count(*) FILTER (WHERE status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED'))::int AS "activeRewards",
                count(*) FILTER (WHERE status = 'REDEEMED')::int AS "redeemedRewards",
                (SELECT COALESCE(sum(amount_cents), 0)::int FROM reward_cards WHERE account_id = $1 AND status = 'ISSUED') AS "totalIssuedCents"
           FROM rewards WHERE account_id = $1`,
        [m.accountId],
      );
      const overview = (await api.get('/v1/account/overview')).body;
      expect(overview.stats).toEqual(stats);
      const [byCurrency] = await dataSource.query(
        `SELECT (SELECT COALESCE(sum(remaining_value_cents), 0)::int FROM rewards
                  WHERE account_id = $1 AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')) AS "activeValueCents"`,
        [m.accountId],
      );
      expect(overview.statsByCurrency).toEqual([{ currency: 'USD', totalIssuedCents: stats.totalIssuedCents, ...byCurrency }]);
      expect(stats.redeemedRewards + stats.activeRewards).toBeGreaterThan(0);
      const [{ n: ledger }] = await dataSource.query(`SELECT count(*)::int AS n FROM wallet_transactions WHERE account_id = $1`, [m.accountId]);
      expect((await api.get('/v1/wallet/transactions?page_size=1')).body.total).toBe(ledger);
    }

    // Folding every change leaves the same counts, and no change rows behind. The worker's own compactor may hold
    // some of them at that moment (SKIP LOCKED): fold until none is left.
    await eventually(async () => {
      while ((await compactListCounts(dataSource.manager, 1_000)) > 0);
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM list_count_changes WHERE account_id = ANY($1::text[])`, [
        merchants.map((m) => m.accountId),
      ]);
      return n === 0;
    });
    for (const m of merchants) {
      expect(await keptCounts(m.accountId)).toEqual(await realCounts(m.accountId));
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM list_count_changes WHERE account_id = $1`, [m.accountId]);
      expect(n).toBe(0);
    }
  }, 180_000);

  it('counts rows deleted with their account, and readListTotals answers 0 for lists never written', async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 10_000);
    await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000));
    expect(await readListTotals(dataSource.manager, m.accountId, ['rewards', 'rewards:EXPIRED', 'topups'])).toEqual({
      rewards: 1,
      'rewards:EXPIRED': 0,
      topups: 1,
    });
    // As the owner role: the service itself never deletes a reward (and its role may not).
    const owner = await adminDataSource(t.config.databaseUrl);
    try {
      await owner.query(`DELETE FROM rewards WHERE account_id = $1`, [m.accountId]);
    } finally {
      await owner.destroy();
    }
    expect(await readListTotals(dataSource.manager, m.accountId, ['rewards', 'rewards:SENT'])).toEqual({ rewards: 0, 'rewards:SENT': 0 });
  });
});
