import { DataSource } from 'typeorm';
import { choiceReward, fund } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The list filters of docs/pagination.md (Filters): rewards by creation range, type, campaign and
 * currency; wallet transactions by creation range, currency, kind and related id. Each page and
 * total equals what a query over the rows answers; ranges over 366 days or reversed are 400.
 */
describe('list filters: date ranges and the other filters', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let m: SeededMerchant;
  let other: SeededMerchant;
  const now = Date.now();
  const SEEDED = 600;

  /** Rewards of both merchants, one every 16 hours back from now (over 400 days), in turn FIXED/CHOICE, 3 campaigns, USD/EUR. */
  async function seed(): Promise<void> {
    await dataSource.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, campaign, created_at, utid)
       SELECT 'rw_filt' || lpad(g::text, 6, '0') || substr(md5(random()::text), 1, 6), ($1::text[])[1 + g % 2],
              (ARRAY['FIXED', 'CHOICE'])[1 + (g / 2) % 2], 'SENT', 500, 500, (ARRAY['USD', 'EUR'])[1 + (g / 3) % 2],
              'r' || g || '@example.test', 'Ada', 'api', (ARRAY['spring', 'autumn', NULL])[1 + (g / 5) % 3],
              to_timestamp($3::double precision / 1000) - make_interval(hours => 16 * g),
              CASE WHEN (g / 2) % 2 = 0 THEN 'U-FILTER' END
         FROM generate_series(1, $2::int) AS g
        ORDER BY g DESC`,
      [[m.accountId, other.accountId], SEEDED * 2, now],
    );
  }

  async function truth(where: string, params: unknown[]): Promise<string[]> {
    const rows: { id: string }[] = await dataSource.query(`SELECT id FROM rewards WHERE account_id = $1 ${where} ORDER BY seq DESC`, [m.accountId, ...params]);
    return rows.map((r) => r.id);
  }

  /** Every page of a filtered list, walked by page number and by cursor: both must give the same ids. */
  async function walk(query: string): Promise<{ ids: string[]; total: number }> {
    const api = t.api.as(m.readKey);
    const ids: string[] = [];
    let total = -1;
    for (let page = 1; ; page++) {
      const res = await api.get(`/v1/rewards?${query}&page_size=100&page=${page}`);
      expect(res.status).toBe(200);
      total = res.body.total;
      for (const r of res.body.rewards) ids.push(r.id);
      if (!res.body.hasMore) break;
    }
    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await api.get(`/v1/rewards?${query}&page_size=100${after ? `&starting_after=${after}` : ''}`);
      expect(res.body.total).toBe(total);
      for (const r of res.body.rewards) walked.push(r.id);
      if (!res.body.hasMore) break;
      after = walked[walked.length - 1];
    }
    expect(walked).toEqual(ids);
    return { ids, total };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { ...(await isolatedDatabase()), RATE_LIMIT_PER_MINUTE: '100000' } });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    other = await seedMerchant(t);
    await seed();
  }, 60_000);
  afterAll(() => t.close());

  it('rewards by created range, type, campaign and currency, alone and together, in pages and by cursor', async () => {
    const gte = new Date(now - 100 * DAY).toISOString();
    const lt = new Date(now - 20 * DAY).toISOString();
    const cases: [string, string, unknown[]][] = [
      [`created_gte=${gte}&created_lt=${lt}`, 'AND created_at >= $2 AND created_at < $3', [gte, lt]],
      ['type=FIXED', 'AND type = $2', ['FIXED']],
      ['campaign=spring', 'AND campaign = $2', ['spring']],
      ['currency=EUR', 'AND currency = $2', ['EUR']],
      [
        `created_gte=${gte}&created_lt=${lt}&type=CHOICE&campaign=autumn&currency=USD&status=SENT`,
        'AND created_at >= $2 AND created_at < $3 AND type = $4 AND campaign = $5 AND currency = $6',
        [gte, lt, 'CHOICE', 'autumn', 'USD'],
      ],
    ];
    for (const [query, where, params] of cases) {
      const expected = await truth(where, params);
      expect(expected.length).toBeGreaterThan(0);
      const { ids, total } = await walk(query);
      expect({ query, total, ids }).toEqual({ query, total: expected.length, ids: expected });
    }
  });

  it('a range needs only one end: the end defaults to now, the start to 366 days before the end', async () => {
    const lt = new Date(now - 30 * DAY).toISOString();
    const fromEnd = await walk(`created_lt=${lt}`);
    const defaultStart = new Date(new Date(lt).getTime() - 366 * DAY).toISOString();
    expect(fromEnd.ids).toEqual(await truth('AND created_at >= $2 AND created_at < $3', [defaultStart, lt]));
    // The seed spans 400 days: the default start leaves the oldest out, as no range keeps them in.
    expect(fromEnd.total).toBeLessThan((await truth('AND created_at < $2', [lt])).length);
    const gte = new Date(now - 10 * DAY).toISOString();
    expect((await walk(`created_gte=${gte}`)).ids).toEqual(await truth('AND created_at >= $2', [gte]));
    expect((await walk('type=CHOICE')).total).toBe((await truth('AND type = $2', ['CHOICE'])).length);
  });

  it('a reversed, empty, too long or malformed range is 400 naming the field', async () => {
    const api = t.api.as(m.readKey);
    const at = (days: number) => new Date(now - days * DAY).toISOString();
    const bad: [string, string][] = [
      [`created_gte=${at(10)}&created_lt=${at(20)}`, 'created_gte'],
      [`created_gte=${at(10)}&created_lt=${at(10)}`, 'created_gte'],
      [`created_gte=${at(400)}&created_lt=${at(30)}`, 'created_gte'],
      [`created_gte=${at(367)}`, 'created_gte'],
      ['created_lt=yesterday', 'created_lt'],
      ['type=GOLD', 'type'],
      ['currency=usd', 'currency'],
    ];
    for (const [query, path] of bad) {
      for (const list of ['/v1/rewards', '/v1/wallet/transactions']) {
        if (list !== '/v1/rewards' && (path === 'type' || query.startsWith('currency'))) continue;
        const res = await api.get(`${list}?${query}`);
        expect({ list, query, status: res.status, paths: res.body.issues?.map((d: any) => d.path) }).toEqual({ list, query, status: 400, paths: [path] });
      }
    }
    const wide = await api.get(`/v1/rewards?created_gte=${at(366)}&created_lt=${at(0)}`);
    expect(wide.status).toBe(200);
  });

  it('wallet transactions by kind, related id, currency and created range', async () => {
    const w = await seedMerchant(t);
    await fund(t, w, 50_000);
    const api = t.api.as(w.key);
    const [{ between }] = await dataSource.query(`SELECT clock_timestamp() AS between`);
    const first = (await api.post('/v1/rewards', choiceReward(1_000))).body.reward.id;
    const second = (await api.post('/v1/rewards', choiceReward(2_000))).body.reward.id;
    expect((await api.post(`/v1/rewards/${second}/cancel`)).status).toBe(200);
    const list = async (query: string) => {
      const res = await t.api.as(w.readKey).get(`/v1/wallet/transactions?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.transactions.length);
      return res.body.transactions.map((tx: any) => [tx.kind, tx.relatedId, tx.availableDeltaCents]);
    };
    expect(await list('kind=HOLD')).toEqual([
      ['HOLD', second, -2_000],
      ['HOLD', first, -1_000],
    ]);
    expect(await list(`related_id=${second}`)).toEqual([
      ['RELEASE', second, 2_000],
      ['HOLD', second, -2_000],
    ]);
    expect(await list(`created_gte=${new Date(between).toISOString()}&kind=RELEASE&currency=USD`)).toEqual([['RELEASE', second, 2_000]]);
    expect(await list(`created_lt=${new Date(between).toISOString()}`)).toEqual([['TOPUP', expect.any(String), 50_000]]);
    expect(await list('kind=CONVERSION_IN')).toEqual([]);
    const bad = await t.api.as(w.readKey).get('/v1/wallet/transactions?kind=WITHDRAW');
    expect(bad.status).toBe(400);
  });
});
