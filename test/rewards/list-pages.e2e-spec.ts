import { DataSource } from 'typeorm';
import { choiceReward, fund } from '../support/rewards';
import { adminDataSource } from '../support/database-admin';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

const STATUSES = ['SENT', 'CANCELED', 'EXPIRED'];

/**
 * Pages of long lists (docs/pagination.md): `page` answers exactly what an OFFSET over the
 * newest-first order would, also deep in a list spanning many count blocks and with a status
 * filter; cursors walk the whole list both ways; bad cursors are 400.
 */
describe('list pages and cursors', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let m: SeededMerchant;
  let other: SeededMerchant;
  const SEEDED = 30_000;

  /**
   * Rewards written in SQL, interleaved with another merchant's, with sequence values placed as a
   * long-lived database has them: a dense run, then sparse ones spread over several coarse count
   * blocks. The database is this suite's own, so moving the sequence on is safe.
   */
  async function seed(accountIds: string[], count: number): Promise<void> {
    await dataSource.query(
      `INSERT INTO rewards (seq, id, account_id, type, status, face_value_cents, remaining_value_cents, currency,
                            recipient_email, recipient_first_name, source, external_id)
       OVERRIDING SYSTEM VALUE
       SELECT CASE WHEN g <= $2 / 2 THEN 10000000 + g ELSE 20000000 + g * 97 END,
              'rw_pages' || lpad(g::text, 7, '0') || substr(md5(random()::text), 1, 6), ($1::text[])[1 + g % cardinality($1::text[])],
              'CHOICE', s.status, 500, CASE WHEN s.status = 'SENT' THEN 500 ELSE 0 END, 'USD',
              'r' || g || '@example.test', 'Ada', 'api', 'order-' || (g % 7)
         FROM generate_series(1, $2::int) AS g
         CROSS JOIN LATERAL (SELECT ($3::text[])[1 + (g * 7 + g / 5) % 3] AS status) AS s
        ORDER BY g`,
      [accountIds, count, STATUSES],
    );
    const [{ next }] = await dataSource.query(`SELECT max(seq) + 1 AS next FROM rewards`);
    // Only the owner role may alter a table.
    const owner = await adminDataSource(t.config.databaseUrl);
    try {
      await owner.query(`ALTER TABLE rewards ALTER COLUMN seq RESTART WITH ${Number(next)}`);
    } finally {
      await owner.destroy();
    }
  }

  async function truth(filter: string, params: unknown[], offset: number, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await dataSource.query(
      `SELECT id FROM rewards WHERE account_id = $1 ${filter} ORDER BY seq DESC OFFSET ${offset} LIMIT ${limit}`,
      [m.accountId, ...params],
    );
    return rows.map((r) => r.id);
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    other = await seedMerchant(t);
    await seed([m.accountId, other.accountId], SEEDED * 2);
    await fund(t, m, 100_000);
    for (let i = 0; i < 3; i++) await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000));
  }, 120_000);
  afterAll(() => t.close());

  it('page N is the N-th slice of the newest-first order, across coarse and fine count blocks and with a status filter', async () => {
    const api = t.api.as(m.readKey);
    const total = SEEDED + 3;
    for (const page of [1, 2, 41, 42, 43, 97, 151, 152, 299, 301]) {
      const res = await api.get(`/v1/rewards?page=${page}&page_size=100`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(total);
      expect(res.body.rewards.map((r: any) => r.id)).toEqual(await truth('', [], (page - 1) * 100, 100));
      expect(res.body.hasMore).toBe(page * 100 < total);
    }
    for (const status of STATUSES) {
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM rewards WHERE account_id = $1 AND status = $2`, [m.accountId, status]);
      for (const page of [1, 33, 41, 42, 55, 77, Math.ceil(n / 100)]) {
        const res = await api.get(`/v1/rewards?page=${page}&page_size=100&status=${status}`);
        expect(res.body.total).toBe(n);
        expect(res.body.rewards.map((r: any) => r.id)).toEqual(await truth('AND status = $2', [status], (page - 1) * 100, 100));
      }
    }
    const byExternalId = await api.get('/v1/rewards?page=3&page_size=100&external_id=order-3&status=CANCELED');
    expect(byExternalId.body.rewards.map((r: any) => r.id)).toEqual(
      await truth('AND external_id = $2 AND status = $3', ['order-3', 'CANCELED'], 200, 100),
    );
  }, 60_000);

  it('starting_after walks the whole filtered list and ending_before walks it back', async () => {
    const api = t.api.as(m.readKey);
    const expected = await truth('AND external_id = $2', ['order-5'], 0, 100_000);
    const walked: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await api.get(`/v1/rewards?page_size=100&external_id=order-5${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(expected.length);
      for (const r of res.body.rewards) walked.push(r.id);
      if (!res.body.hasMore) break;
      cursor = walked[walked.length - 1];
    }
    expect(walked).toEqual(expected);

    const back = await api.get(`/v1/rewards?page_size=50&external_id=order-5&ending_before=${expected[120]}`);
    expect(back.body.rewards.map((r: any) => r.id)).toEqual(expected.slice(70, 120));
    expect(back.body.hasMore).toBe(true);
    const first = await api.get(`/v1/rewards?page_size=50&external_id=order-5&ending_before=${expected[20]}`);
    expect(first.body.rewards.map((r: any) => r.id)).toEqual(expected.slice(0, 20));
    expect(first.body.hasMore).toBe(false);
  }, 60_000);

  it('refuses two cursors, a cursor with a page, and an id that is not one of the account\'s', async () => {
    const api = t.api.as(m.readKey);
    const [mine] = await truth('', [], 0, 1);
    const [{ id: theirs }] = await dataSource.query(`SELECT id FROM rewards WHERE account_id = $1 LIMIT 1`, [other.accountId]);
    const cases: [string, string][] = [
      [`starting_after=${mine}&ending_before=${mine}`, 'ending_before'],
      [`starting_after=${mine}&page=2`, 'page'],
      [`starting_after=${theirs}`, 'starting_after'],
      ['ending_before=rw_unknown', 'ending_before'],
    ];
    for (const [query, path] of cases) {
      const res = await api.get(`/v1/rewards?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'bad_request', issues: [expect.objectContaining({ path })] });
    }
  });

  it('wallet transactions and top-ups walk with cursors too, newest first', async () => {
    const n = await seedMerchant(t);
    for (let i = 1; i <= 7; i++) await fund(t, n, i * 100);
    const api = t.api.as(n.readKey);
    const topups = (await api.get('/v1/topups?page_size=100')).body.topups.map((x: any) => x.amountCents);
    expect(topups).toEqual([700, 600, 500, 400, 300, 200, 100]);
    const all = (await api.get('/v1/topups?page_size=100')).body.topups.map((x: any) => x.id);
    const next = await api.get(`/v1/topups?page_size=3&starting_after=${all[2]}`);
    expect(next.body).toMatchObject({ total: 7, hasMore: true });
    expect(next.body.topups.map((x: any) => x.id)).toEqual(all.slice(3, 6));
    const back = await api.get(`/v1/topups?page_size=3&ending_before=${all[2]}`);
    expect(back.body.topups.map((x: any) => x.id)).toEqual(all.slice(0, 2));
    expect(back.body.hasMore).toBe(false);

    const ledger = (await api.get('/v1/wallet/transactions?page_size=100')).body.transactions.map((x: any) => x.id);
    expect(ledger).toHaveLength(7);
    const tail = await api.get(`/v1/wallet/transactions?page_size=10&starting_after=${ledger[4]}`);
    expect(tail.body).toMatchObject({ total: 7, hasMore: false });
    expect(tail.body.transactions.map((x: any) => x.id)).toEqual(ledger.slice(5));
    expect((await api.get(`/v1/wallet/transactions?starting_after=${all[0]}`)).status).toBe(400);
  });
});
