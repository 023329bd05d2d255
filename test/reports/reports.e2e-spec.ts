import Papa from 'papaparse';
import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { REPORT_BUILD_SWEEP, REPORT_CHUNK_BYTES, REPORT_EXPIRY_SWEEP } from '@app/reports';
import { eventually } from '../support/processes';
import { connect, registerApp } from '../support/oauth';
import { catalogPicks, choiceReward, fixedReward } from '../support/rewards';
import { seedMerchant, SeededMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';
import { WebhookReceiver } from '../support/webhook-receiver';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Reports (docs/reports.md): requested over the API, built by the worker into CSV, downloaded, expired. */
describe('Reports', () => {
  const clock = new TestClock();
  let receiver: WebhookReceiver;
  let t: TestApp;
  let worker: TestWorker;
  let db: DataSource;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: { WEBHOOK_RETRY_BASE_MS: '50' }, overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
  });
  afterEach(() => clock.reset());
  afterAll(async () => {
    await worker?.close(); // the last test closes the first worker and starts this one
    await t?.close();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });

  const funded = async (cents = 100_000) => {
    const m = await seedMerchant(t);
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: cents })).status).toBe(201);
    return m;
  };
  const send = async (m: SeededMerchant, body: Record<string, unknown>) => {
    const res = await t.api.as(m.key).post('/v1/rewards', body);
    expect(res.status).toBe(201);
    return res.body.reward as { id: string };
  };
  const request = async (m: SeededMerchant, body: Record<string, unknown>, key = m.readKey) => {
    const res = await t.api.as(key).post('/v1/reports', body);
    expect(res.status).toBe(202);
    return res.body.report as { id: string; status: string; filters: Record<string, string> };
  };
  /** Runs the build sweep as its timer would, then reads the report: the sweep runs each open report to its end. */
  const built = async (m: SeededMerchant, id: string, timeoutMs?: number) => {
    await worker.app.get(Sweepers).run(REPORT_BUILD_SWEEP);
    return eventually(async () => {
      const res = await t.api.as(m.readKey).get(`/v1/reports/${id}`);
      return ['COMPLETED', 'FAILED'].includes(res.body.report.status) && res.body.report;
    }, timeoutMs);
  };
  const download = async (m: SeededMerchant, id: string) => {
    const res = await t.api.as(m.readKey).get(`/v1/reports/${id}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const parsed = Papa.parse<Record<string, string>>(res.text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    return { text: res.text, fields: parsed.meta.fields, rows: parsed.data };
  };

  it('builds a rewards report: 202 PENDING, then COMPLETED with the CSV of the matching rewards, newest first, quoted and formula-guarded, UTF-8 names kept', async () => {
    const m = await funded();
    const first = await send(m, choiceReward(1_000, { recipient: { email: 'zoe@example.test', firstName: 'Zoë', lastName: '=HYPERLINK("http://x")' }, campaign: 'spring, "thanks"' }));
    const second = await send(m, choiceReward(2_500, { recipient: { email: 'yamada@example.test', firstName: '山田', lastName: '@Łukasz' }, message: 'Line one\nline two' }));
    const picks = await catalogPicks(t, m.key);
    const third = await send(m, choiceReward(5_000, { campaign: 'other', externalId: 'ext-5000', allowedBrandKeys: [picks.usdBrandKey], expiresAt: new Date(Date.now() + 30 * DAY_MS).toISOString() }));

    const report = await request(m, { type: 'rewards', filters: { currency: 'USD' } });
    expect(report).toMatchObject({ type: 'rewards', status: 'PENDING', filters: { currency: 'USD' } });
    expect(report.id).toMatch(/^rpt_/);
    // The range defaults to the 366 days before the request.
    const span = new Date(report.filters.createdLt).getTime() - new Date(report.filters.createdGte).getTime();
    expect(span).toBe(366 * DAY_MS);
    expect(Math.abs(new Date(report.filters.createdLt).getTime() - Date.now())).toBeLessThan(60_000);

    const done = await built(m, report.id);
    expect(done).toMatchObject({ status: 'COMPLETED', rowCount: 3 });
    expect(new Date(done.expiresAt).getTime() - new Date(done.completedAt).getTime()).toBe(7 * DAY_MS);

    const csv = await download(m, report.id);
    expect(csv.text.startsWith('id,type,status,faceValueCents,remainingValueCents,currency,')).toBe(true);
    expect(csv.text).toContain('\r\n');
    for (const column of ['id', 'type', 'status', 'currency', 'faceValueCents', 'remainingValueCents', 'recipientEmail', 'recipientFirstName', 'recipientLastName', 'campaign', 'externalId', 'source', 'createdAt', 'sentAt', 'openedAt', 'redeemedAt', 'expiresAt']) {
      expect(csv.fields).toContain(column);
    }
    expect(csv.rows.map((row) => row.id)).toEqual([third.id, second.id, first.id]);
    const byId = new Map(csv.rows.map((row) => [row.id, row]));
    expect(byId.get(first.id)).toMatchObject({
      recipientFirstName: 'Zoë',
      recipientLastName: `'=HYPERLINK("http://x")`,
      campaign: 'spring, "thanks"',
      faceValueCents: '1000',
      currency: 'USD',
      type: 'CHOICE',
    });
    expect(byId.get(second.id)).toMatchObject({ recipientFirstName: '山田', recipientLastName: "'@Łukasz", message: 'Line one\nline two' });
    // Every cell that needs no formula guard reads as the API gives the reward: numbers, times, lists.
    const cell = (value: unknown) => (value === null || value === undefined ? '' : Array.isArray(value) ? value.join(' ') : String(value));
    for (const id of [first.id, second.id, third.id]) {
      const reward = (await t.api.as(m.readKey).get(`/v1/rewards/${id}`)).body.reward;
      const row = byId.get(id)!;
      for (const column of ['type', 'status', 'faceValueCents', 'remainingValueCents', 'currency', 'utid', 'allowedBrandKeys', 'externalId', 'source', 'expiresAt', 'sentAt', 'openedAt', 'redeemedAt', 'createdAt', 'brandName']) {
        expect([column, row[column]]).toEqual([column, cell(reward[column])]);
      }
    }
    expect(byId.get(third.id)).toMatchObject({ allowedBrandKeys: picks.usdBrandKey, externalId: 'ext-5000', faceValueCents: '5000' });
    expect(byId.get(third.id)!.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('takes the list filters: a campaign and a creation range select the rows; a wallet transactions report has the ledger rows with their currency', async () => {
    const m = await funded(50_000);
    const tagged = await send(m, choiceReward(1_200, { campaign: 'q4' }));
    await send(m, choiceReward(800));

    const byCampaign = await request(m, { type: 'rewards', filters: { campaign: 'q4', createdGte: new Date(Date.now() - DAY_MS).toISOString() } });
    expect((await built(m, byCampaign.id)).rowCount).toBe(1);
    expect((await download(m, byCampaign.id)).rows.map((row) => row.id)).toEqual([tagged.id]);

    const past = await request(m, { type: 'rewards', filters: { createdGte: '2025-01-01T00:00:00Z', createdLt: '2025-02-01T00:00:00Z' } });
    expect((await built(m, past.id)).rowCount).toBe(0);
    const empty = await download(m, past.id);
    expect(empty.fields?.[0]).toBe('id');
    expect(empty.rows).toEqual([]);

    const ledger = await request(m, { type: 'wallet_transactions', filters: { kind: 'HOLD' } });
    expect((await built(m, ledger.id)).rowCount).toBe(2);
    const rows = (await download(m, ledger.id)).rows;
    expect(Object.keys(rows[0])).toEqual(['id', 'currency', 'kind', 'availableDeltaCents', 'reservedDeltaCents', 'description', 'relatedType', 'relatedId', 'createdAt']);
    // A negative amount is a number, written as one (no formula guard on numbers).
    expect(rows.map((row) => [row.kind, row.currency, row.availableDeltaCents])).toEqual([
      ['HOLD', 'USD', '-800'],
      ['HOLD', 'USD', '-1200'],
    ]);
  });

  it('a cards report lists the issued cards with their reward id and never a credential', async () => {
    const m = await funded();
    const picks = await catalogPicks(t, m.key);
    const reward = await send(m, fixedReward(picks.fixedUsd));
    await eventually(async () => (await t.api.as(m.key).get(`/v1/rewards/${reward.id}`)).body.reward.issuedCards[0]?.status === 'ISSUED');
    const card = (await t.api.as(m.key).get(`/v1/rewards/${reward.id}?include_credentials=true`)).body.reward.issuedCards[0];

    const report = await request(m, { type: 'cards' });
    expect((await built(m, report.id)).rowCount).toBe(1);
    const csv = await download(m, report.id);
    expect(csv.fields).toEqual(['id', 'rewardId', 'utid', 'rewardName', 'amountCents', 'currency', 'status', 'redemptionInstructions', 'issuedAt', 'createdAt', 'brandName', 'brandImageUrl']);
    expect(csv.rows[0]).toMatchObject({ id: card.id, rewardId: reward.id, status: 'ISSUED', amountCents: String(card.amountCents) });
    for (const credential of card.credentials as { value: string }[]) expect(csv.text).not.toContain(credential.value);
  });

  it('streams a report larger than one read and one stored piece: every row once, newest first, the CSV reassembled in order', async () => {
    const m = await seedMerchant(t);
    const count = 2_345; // three reads of 1,000 rows; with 1,000-character messages, three pieces of about 1 MB
    await db.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, message, created_at)
       SELECT 'rw_big' || lpad(g::text, 6, '0'), $1, 'CHOICE', 'SENT', 100, 100, 'USD', 'r' || g || '@example.test', 'Ré ' || g, 'api',
              repeat('x', 990) || ', "' || g || '"', now() - make_interval(secs => $2 - g)
         FROM generate_series(1, $2::int) AS g`,
      [m.accountId, count],
    );
    const report = await request(m, { type: 'rewards' });
    expect((await built(m, report.id)).rowCount).toBe(count);
    const [{ pieces }] = await db.query(`SELECT count(*)::int AS pieces FROM report_chunks WHERE report_id = $1`, [report.id]);
    expect(pieces).toBeGreaterThanOrEqual(3);
    const { rows } = await download(m, report.id);
    expect(rows).toHaveLength(count);
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: count }, (_, i) => `rw_big${String(count - i).padStart(6, '0')}`));
    expect(rows[0]).toMatchObject({ recipientFirstName: `Ré ${count}`, message: `${'x'.repeat(990)}, "${count}"` });
  });

  it('rows with very long fields: the slice larger than a piece is stored alone, and the pieces after it are back to the standard size', async () => {
    const m = await seedMerchant(t);
    // The newest 250 rows (one CSV slice) carry 6,000-character messages, 1.5 MB together, more than a piece;
    // 2,500 older rows carry 500-character ones, about 1.6 MB: two pieces or more once the large slice is out.
    // Written in SQL: the API caps a message at 1,000 characters, but a slice of long multi-byte text, or a
    // longer column of a later version, can still pass 1 MB.
    await db.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, message, created_at)
       SELECT 'rw_long' || lpad(g::text, 6, '0'), $1, 'CHOICE', 'SENT', 100, 100, 'USD', 'r' || g || '@example.test', 'R', 'api',
              repeat(CASE WHEN g > 2500 THEN 'y' ELSE 'z' END, CASE WHEN g > 2500 THEN 6000 ELSE 500 END), now() - make_interval(secs => 3000 - g)
         FROM generate_series(1, 2750) AS g`,
      [m.accountId],
    );
    const report = await request(m, { type: 'rewards' });
    expect((await built(m, report.id)).rowCount).toBe(2750);
    const pieces: { seq: number; bytes: number }[] = await db.query(
      `SELECT seq, octet_length(data) AS bytes FROM report_chunks WHERE report_id = $1 ORDER BY seq`,
      [report.id],
    );
    // One piece holds the large slice alone (the header line before it went out as a piece of its own);
    // every other piece, the two or more after it included, has at most the standard size.
    const large = pieces.filter((piece) => piece.bytes > REPORT_CHUNK_BYTES);
    expect(large).toHaveLength(1);
    expect(large[0].bytes).toBeGreaterThan(250 * 6000);
    expect(pieces.filter((piece) => piece.seq > large[0].seq).length).toBeGreaterThanOrEqual(2);
    const { rows } = await download(m, report.id);
    expect(rows).toHaveLength(2750);
    expect(rows[0]).toMatchObject({ id: 'rw_long002750', message: 'y'.repeat(6000) });
    expect(rows[250]).toMatchObject({ id: 'rw_long002500', message: 'z'.repeat(500) });
    expect(rows[2749].id).toBe('rw_long000001');
  });

  it('a build whose worker died is taken over once its lease has run out, and starts over; a live lease is left alone, and the download is 422 until it completes', async () => {
    const m = await funded(10_000);
    await send(m, choiceReward(500));
    // A report a worker took (attempt 1) and wrote a piece of, still within its lease: nobody else takes it.
    // Written as the take leaves it, so the workers' own timer cannot take it first.
    const report = { id: `rpt_deadworker${Date.now()}` };
    const filters = { createdGte: new Date(Date.now() - DAY_MS).toISOString(), createdLt: new Date(Date.now() + 60_000).toISOString() };
    await db.query(
      `INSERT INTO reports (id, account_id, type, status, filters, attempts, leased_until, started_at)
       VALUES ($1, $2, 'rewards', 'RUNNING', $3, 1, clock_timestamp() + interval '30 seconds', clock_timestamp())`,
      [report.id, m.accountId, JSON.stringify(filters)],
    );
    await db.query(`INSERT INTO report_chunks (report_id, attempt, seq, data) VALUES ($1, 1, 0, convert_to('half-written', 'UTF8'))`, [report.id]);
    await worker.app.get(Sweepers).run(REPORT_BUILD_SWEEP);
    expect((await t.api.as(m.readKey).get(`/v1/reports/${report.id}`)).body.report.status).toBe('RUNNING');
    // Not downloadable before it completes.
    const early = await t.api.as(m.readKey).get(`/v1/reports/${report.id}/download`);
    expect(early.status).toBe(422);
    expect(early.body).toMatchObject({ error: 'validation' });
    // The lease is at most 60 s ahead of a take; that worker died: its lease runs out (written into the past).
    await db.query(`UPDATE reports SET leased_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [report.id]);
    const done = await built(m, report.id);
    expect(done).toMatchObject({ status: 'COMPLETED', rowCount: 1 });
    const csv = await download(m, report.id);
    expect(csv.text).not.toContain('half-written');
    expect(await db.query(`SELECT attempt FROM report_chunks WHERE report_id = $1 GROUP BY attempt`, [report.id])).toEqual([{ attempt: 2 }]);
  });

  it('lists the account’s reports newest first with their total; another account’s report is 404 to get and to download', async () => {
    const m = await funded(10_000);
    const other = await seedMerchant(t);
    const older = await request(m, { type: 'rewards' });
    const newer = await request(m, { type: 'wallet_transactions' });
    const list = await t.api.as(m.readKey).get('/v1/reports');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.reports.map((r: { id: string }) => r.id)).toEqual([newer.id, older.id]);
    expect((await t.api.as(other.readKey).get('/v1/reports')).body).toEqual({ reports: [], total: 0 });

    await built(m, older.id);
    for (const path of [`/v1/reports/${older.id}`, `/v1/reports/${older.id}/download`, '/v1/reports/rpt_nope', '/v1/reports/rpt_nope/download']) {
      const res = await t.api.as(other.readKey).get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found' });
    }
  });

  it('refuses bad input with 400 naming the field: unknown type or filter, a bad value, a reversed or longer than 366-day range', async () => {
    const m = await seedMerchant(t);
    const refused = async (body: unknown, path: string) => {
      const res = await t.api.as(m.readKey).post('/v1/reports', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad_request');
      expect(res.body.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    };
    await refused({ type: 'topups' }, 'type');
    await refused({ type: 'rewards', filters: { color: 'red' } }, 'filters.color');
    await refused({ type: 'rewards', filters: { created_gte: '2026-01-01T00:00:00Z' } }, 'filters.created_gte');
    await refused({ type: 'rewards', filters: { page: '2' } }, 'filters.page');
    await refused({ type: 'rewards', filters: { kind: 'HOLD' } }, 'filters.kind');
    await refused({ type: 'wallet_transactions', filters: { status: 'SENT' } }, 'filters.status');
    await refused({ type: 'rewards', filters: { status: 'LOST' } }, 'filters.status');
    await refused({ type: 'wallet_transactions', filters: { currency: 'usd' } }, 'filters.currency');
    await refused({ type: 'rewards', filters: { createdGte: 'yesterday' } }, 'filters.createdGte');
    await refused({ type: 'rewards', filters: { createdGte: '2026-03-01T00:00:00Z', createdLt: '2026-02-01T00:00:00Z' } }, 'filters.createdGte');
    await refused({ type: 'rewards', filters: { createdGte: '2025-01-01T00:00:00Z', createdLt: '2026-01-03T00:00:00Z' } }, 'filters.createdGte');
    await refused({ type: 'rewards', filters: 'all' }, 'filters');
    // 366 days exactly is accepted.
    await request(m, { type: 'rewards', filters: { createdGte: '2025-01-01T00:00:00Z', createdLt: '2026-01-02T00:00:00Z' } });
    expect((await t.api.as(m.readKey).get('/v1/reports')).body.total).toBe(1);
  });

  it('a download after 7 days is 404 (by the clock), and the expiry sweep deletes the report', async () => {
    const m = await funded(10_000);
    await send(m, choiceReward(500));
    const report = await request(m, { type: 'rewards' });
    const done = await built(m, report.id);
    expect((await t.api.as(m.readKey).get(`/v1/reports/${report.id}/download`)).status).toBe(200);

    clock.freeze(new Date(new Date(done.expiresAt).getTime() - 1_000));
    expect((await t.api.as(m.readKey).get(`/v1/reports/${report.id}/download`)).status).toBe(200);
    await worker.app.get(Sweepers).run(REPORT_EXPIRY_SWEEP);
    expect((await t.api.as(m.readKey).get(`/v1/reports/${report.id}`)).status).toBe(200);

    clock.advance(1_000);
    const expired = await t.api.as(m.readKey).get(`/v1/reports/${report.id}/download`);
    expect(expired.status).toBe(404);
    expect(expired.body).toMatchObject({ error: 'not_found' });
    await worker.app.get(Sweepers).run(REPORT_EXPIRY_SWEEP);
    expect((await t.api.as(m.readKey).get(`/v1/reports/${report.id}`)).status).toBe(404);
    expect(await db.query(`SELECT 1 FROM report_chunks WHERE report_id = $1`, [report.id])).toEqual([]);
  });

  it('delivers report.completed {reportId, type, rowCount}, recorded with the completion', async () => {
    const m = await funded(10_000);
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url(`/reports-${m.accountId}`), events: ['report.completed'] });
    expect(hook.status).toBe(201);
    await send(m, choiceReward(500));
    const report = await request(m, { type: 'wallet_transactions' });
    const done = await built(m, report.id);
    const [event] = await db.query(`SELECT data FROM events WHERE account_id = $1 AND type = 'report.completed'`, [m.accountId]);
    expect(event.data).toEqual({ reportId: report.id, type: 'wallet_transactions', rowCount: done.rowCount });
    const delivered = await eventually(async () => receiver.at(`/reports-${m.accountId}`).length === 1 && receiver.at(`/reports-${m.accountId}`));
    expect(delivered[0].json).toMatchObject({ type: 'report.completed', data: { reportId: report.id, type: 'wallet_transactions', rowCount: 2 } });
  });

  it('scopes: a token with wallet:read only may request and read transaction reports, not rewards reports, and lists only those', async () => {
    const m = await funded(10_000);
    const rewardsReport = await request(m, { type: 'rewards' });
    const app = await registerApp(t, ['wallet:read']);
    const tokens = await connect(t, app, m, 'wallet:read');
    const asApp = t.api.as(tokens.access_token);
    expect((await asApp.post('/v1/reports', { type: 'rewards' })).status).toBe(403);
    const own = await asApp.post('/v1/reports', { type: 'wallet_transactions' });
    expect(own.status).toBe(202);
    expect((await asApp.get(`/v1/reports/${rewardsReport.id}`)).status).toBe(403);
    expect((await asApp.get('/v1/reports')).body.reports.map((r: { id: string }) => r.id)).toEqual([own.body.report.id]);
    expect((await t.api.as(m.writeKey).get('/v1/reports')).status).toBe(403);
  });
  // Last: it closes the file's worker (and starts another).
  it('a worker shutting down mid-build stops at its next batch and gives the report back; another worker builds it from the start', async () => {
    const m = await seedMerchant(t);
    const count = 30_000;
    await db.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, created_at)
       SELECT 'rw_stop' || lpad(g::text, 6, '0'), $1, 'CHOICE', 'SENT', 100, 100, 'USD', 'r' || g || '@example.test', 'R', 'api',
              now() - make_interval(secs => g)
         FROM generate_series(1, $2::int) AS g`,
      [m.accountId, count],
    );
    const report = await request(m, { type: 'rewards' });
    await worker.app.get(Sweepers).run(REPORT_BUILD_SWEEP);
    // The worker builds one report after another, so this one may wait behind the earlier tests' reports: a loaded
    // CI machine did not see it RUNNING within 15 s. A failure names the status it last had.
    await eventually(async () => {
      const [{ status }] = await db.query(`SELECT status FROM reports WHERE id = $1`, [report.id]);
      if (status !== 'RUNNING') throw new Error(`the report is ${status}`);
      return true;
    }, 60_000, 20);
    await worker.close();
    const [given] = await db.query(`SELECT status, attempts, leased_until FROM reports WHERE id = $1`, [report.id]);
    expect(given).toEqual({ status: 'PENDING', attempts: 1, leased_until: null });
    expect(await db.query(`SELECT 1 FROM report_chunks WHERE report_id = $1`, [report.id])).toEqual([]);

    worker = await startTestWorker(t);
    // 30,000 rows from the start: a loaded CI machine took over 15 s.
    const done = await built(m, report.id, 60_000);
    expect(done).toMatchObject({ status: 'COMPLETED', rowCount: count });
    expect((await db.query(`SELECT attempts FROM reports WHERE id = $1`, [report.id]))[0].attempts).toBe(2);
  }, 150_000);
});
