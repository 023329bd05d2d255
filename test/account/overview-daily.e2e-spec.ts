import { DataSource } from 'typeorm';
import { compactListCounts } from '@app/core';
import { choiceReward, fund } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * GET /v1/account/overview/daily (docs/dashboard.md, Overview chart): the face value sent per UTC day
 * and currency over the last 30 or 90 days equals the sum over the rewards' rows, before and after the
 * worker folds the kept sums, and counts rewards sent through the API as well as older ones.
 */
describe('GET /v1/account/overview/daily', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let m: SeededMerchant;
  const now = Date.now();

  async function truth(days: number): Promise<Record<string, Record<string, number>>> {
    const rows: { currency: string; day: string; cents: string }[] = await dataSource.query(
      `SELECT currency, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(face_value_cents) AS cents
         FROM rewards WHERE account_id = $1 AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $2 - 1)
        GROUP BY 1, 2`,
      [m.accountId, days],
    );
    const out: Record<string, Record<string, number>> = {};
    for (const r of rows) (out[r.currency] ??= {})[r.day] = Number(r.cents);
    return out;
  }

  async function answered(days: number) {
    const res = await t.api.as(m.readKey).get(`/v1/account/overview/daily?days=${days}`);
    expect(res.status).toBe(200);
    expect(res.body.days).toBe(days);
    const out: Record<string, Record<string, number>> = {};
    for (const series of res.body.series) {
      expect(series.days).toHaveLength(days);
      expect(series.days[days - 1].date).toBe(new Date().toISOString().slice(0, 10));
      for (const day of series.days) if (day.sentCents !== 0) (out[series.currency] ??= {})[day.date] = day.sentCents;
    }
    return { currencies: res.body.series.map((s: any) => s.currency), out };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase() });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 10_000, currency: 'EUR' })).status).toBe(201);
    // Rewards over 120 days, in USD and EUR, several a day, written as rows (the kept sums come from the trigger).
    await dataSource.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, created_at)
       SELECT 'rw_daily' || lpad(g::text, 6, '0'), $1, 'CHOICE', 'SENT', 100 + g, 100 + g, (ARRAY['USD', 'EUR'])[1 + g % 2],
              'r' || g || '@example.test', 'Ada', 'api', to_timestamp($2::double precision / 1000) - make_interval(hours => 7 * g)
         FROM generate_series(1, 400) AS g`,
      [m.accountId, now],
    );
    expect((await t.api.as(m.key).post('/v1/rewards', choiceReward(1_234))).status).toBe(201);
  });
  afterAll(() => t.close());

  it('30 and 90 days per currency equal the sums over the rows, before and after the counts are folded', async () => {
    for (const days of [30, 90]) {
      const { currencies, out } = await answered(days);
      expect(currencies).toEqual(['USD', 'EUR']);
      expect(out).toEqual(await truth(days));
    }
    while ((await compactListCounts(dataSource.manager)) > 0);
    expect((await answered(90)).out).toEqual(await truth(90));
    expect((await answered(30)).out.USD[new Date().toISOString().slice(0, 10)]).toBeGreaterThanOrEqual(1_234);
  });

  it('other windows are 400', async () => {
    for (const days of ['7', '365', 'x']) {
      expect((await t.api.as(m.readKey).get(`/v1/account/overview/daily?days=${days}`)).status).toBe(400);
    }
  });
});
