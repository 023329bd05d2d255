import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { sharedContract } from '../support/contract';
import { adminDataSource } from '../support/database-admin';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { CatalogPicks, catalogPicks, choiceReward, fixedReward } from '../support/rewards';
import { clockOverride, TestClock } from '../support/test-clock';
import { seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/**
 * Monthly statements and top-up receipts (docs/statements.md) over HTTP, with the worker side issuing
 * cards (captures). The history is made through the API and its ledger rows are then written into past
 * months (the ledger's time is the database's: docs/testing.md, Time), as the superuser with the
 * append-only trigger off, since the service's role cannot move them.
 */
describe('wallet statements and receipts', () => {
  const clock = new TestClock();
  let t: TestApp;
  let worker: TestWorker;
  let dataSource: DataSource;
  let picks: CatalogPicks;

  beforeAll(async () => {
    t = await startTestApp({ overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    const m = await seedMerchant(t);
    picks = await catalogPicks(t, m.key);
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
  });
  afterEach(() => clock.reset());

  const monthStart = (offset: number, from = new Date()) => new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + offset, 1));
  const monthOf = (date: Date) => date.toISOString().slice(0, 7);

  /** The ledger rows of the account after `seq`, moved to `at(i)` (in insertion order). */
  async function moveRows(accountId: string, afterSeq: string, at: (i: number, count: number) => Date): Promise<string> {
    const rows: { id: string; seq: string }[] = await dataSource.query(
      `SELECT t.id, t.seq::text AS seq FROM wallet_transactions t WHERE t.account_id = $1 AND t.seq > $2 ORDER BY t.seq`,
      [accountId, afterSeq],
    );
    if (rows.length === 0) return afterSeq;
    const superuser = await adminDataSource(t.config.databaseUrl, { superuser: true });
    try {
      await superuser.transaction(async (manager) => {
        await manager.query(`SET LOCAL session_replication_role = replica`);
        for (const [i, row] of rows.entries()) {
          await manager.query(`UPDATE wallet_transactions SET created_at = $2 WHERE id = $1`, [row.id, at(i, rows.length)]);
        }
      });
    } finally {
      await superuser.destroy();
    }
    return rows[rows.length - 1].seq;
  }

  /** What the statement must say, straight from the ledger's rows. */
  async function truth(accountId: string, currency: string, start: Date, end: Date) {
    const [row] = await dataSource.query(
      `SELECT coalesce(sum(available_delta_cents) FILTER (WHERE created_at < $3), 0)::int AS oa,
              coalesce(sum(reserved_delta_cents) FILTER (WHERE created_at < $3), 0)::int AS "or",
              coalesce(sum(available_delta_cents) FILTER (WHERE created_at < $4), 0)::int AS ca,
              coalesce(sum(reserved_delta_cents) FILTER (WHERE created_at < $4), 0)::int AS cr,
              coalesce(sum(available_delta_cents) FILTER (WHERE kind = 'TOPUP' AND created_at >= $3 AND created_at < $4), 0)::int AS topup,
              coalesce(sum(available_delta_cents) FILTER (WHERE kind = 'CONVERSION_IN' AND created_at >= $3 AND created_at < $4), 0)::int AS cin,
              coalesce(-sum(available_delta_cents) FILTER (WHERE kind = 'CONVERSION_OUT' AND created_at >= $3 AND created_at < $4), 0)::int AS cout,
              coalesce(sum(reserved_delta_cents) FILTER (WHERE kind = 'HOLD' AND created_at >= $3 AND created_at < $4), 0)::int AS held,
              coalesce(-sum(reserved_delta_cents) FILTER (WHERE kind = 'CAPTURE' AND created_at >= $3 AND created_at < $4), 0)::int AS captured,
              coalesce(sum(available_delta_cents) FILTER (WHERE kind = 'RELEASE' AND created_at >= $3 AND created_at < $4), 0)::int AS released
         FROM wallet_transactions WHERE account_id = $1 AND currency = $2`,
      [accountId, currency, start, end],
    );
    return {
      month: monthOf(start),
      currency,
      openingAvailableCents: row.oa,
      openingReservedCents: row.or,
      topupCents: row.topup,
      heldCents: row.held,
      capturedCents: row.captured,
      releasedCents: row.released,
      conversionInCents: row.cin,
      conversionOutCents: row.cout,
      closingAvailableCents: row.ca,
      closingReservedCents: row.cr,
    };
  }

  /** A PDF over real HTTP, its answer checked against the contract, and its text as pdftotext reads it. */
  async function getPdf(path: string, key: string): Promise<{ status: number; headers: Headers; bytes: Buffer; text: string; fonts: string }> {
    const response = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/pdf' } });
    const bytes = Buffer.from(await response.arrayBuffer());
    const contentType = response.headers.get('content-type');
    const json = contentType?.includes('json') ? JSON.parse(bytes.toString('utf8')) : undefined;
    sharedContract().check('GET', path, response.status, contentType, json ?? (bytes.length ? 'pdf' : undefined), response.headers);
    if (response.status !== 200) return { status: response.status, headers: response.headers, bytes, text: '', fonts: '' };
    const dir = mkdtempSync(join(tmpdir(), 'statement-'));
    try {
      writeFileSync(join(dir, 'doc.pdf'), bytes);
      const text = execFileSync('pdftotext', ['-layout', join(dir, 'doc.pdf'), '-'], { encoding: 'utf8' });
      const fonts = execFileSync('pdffonts', [join(dir, 'doc.pdf')], { encoding: 'utf8' });
      return { status: response.status, headers: response.headers, bytes, text, fonts };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Every font of the document is embedded (pdffonts' `emb` column), and there is at least one. */
  function expectFontsEmbedded(fonts: string) {
    const rows = fonts.split('\n').slice(2).filter((line) => line.trim());
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatch(/DejaVuSans/);
      // name type encoding emb sub uni object ID: emb is the first yes/no after the encoding.
      expect(row).toMatch(/\s(yes)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
    }
  }

  /** A small random generator with a printed seed, so a failure can be replayed (STATEMENT_SEED). */
  function random(seed: number) {
    let state = seed >>> 0;
    return () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
  }

  it('a random history over four UTC months: opening plus movements is closing, each closing the next opening, and this month closes at the live balances', async () => {
    const seed = Number(process.env.STATEMENT_SEED ?? Date.now() % 1_000_000);
    const rand = random(seed);
    const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
    const m = await seedMerchant(t, { name: 'Statement Test Ltd' });
    const api = t.api.as(m.key);
    const openChoice: { id: string; currency: string }[] = [];
    const wallet = async (currency: string) =>
      ((await t.api.as(m.readKey).get('/v1/wallets')).body.wallets as any[]).find((w) => w.currency === currency) ?? { availableCents: 0, reservedCents: 0 };

    const step = async () => {
      const usd = await wallet('USD');
      const eur = await wallet('EUR');
      const choice = rand();
      if (choice < 0.25 || usd.availableCents < 5_000) {
        const currency = rand() < 0.2 ? 'EUR' : 'USD';
        expect((await api.post('/v1/topups', { amountCents: between(5_000, 40_000), currency })).status).toBe(201);
      } else if (choice < 0.45) {
        const currency = eur.availableCents > 3_000 && rand() < 0.4 ? 'EUR' : 'USD';
        const res = await api.post('/v1/rewards', choiceReward(between(1_000, 2_500), { currency }));
        expect([res.status, res.body.message]).toEqual([201, undefined]);
        openChoice.push({ id: res.body.reward.id, currency });
      } else if (choice < 0.6 && openChoice.length > 0) {
        const [reward] = openChoice.splice(between(0, openChoice.length - 1), 1);
        expect((await api.post(`/v1/rewards/${reward.id}/cancel`)).status).toBe(200);
      } else if (choice < 0.75 && usd.availableCents >= picks.fixedUsd.valueCents) {
        const res = await api.post('/v1/rewards', fixedReward(picks.fixedUsd));
        expect(res.status).toBe(201);
        // The card is captured by the worker side: wait for it, so the capture belongs to this month.
        await eventually(async () => {
          const [card] = await dataSource.query(`SELECT status FROM reward_cards WHERE reward_id = $1`, [res.body.reward.id]);
          return card?.status === 'ISSUED';
        });
      } else if (choice < 0.9) {
        const quote = await api.post('/v1/fx/quotes', { from: 'USD', to: 'EUR', toAmountCents: between(200, 3_000) });
        expect(quote.status).toBe(201);
        expect((await api.post('/v1/fx/conversions', { quoteId: quote.body.quote.id })).status).toBe(201);
      } else {
        const res = await api.post('/v1/rewards', choiceReward(between(1_000, 2_000), { currency: 'EUR', fundingCurrency: 'USD' }));
        expect([res.status, res.body.message]).toEqual([201, undefined]);
        openChoice.push({ id: res.body.reward.id, currency: 'EUR' });
      }
    };

    // Three past months, then this one (its rows keep their real time). The first row of a past month
    // lands on its very first microsecond and the last on its very last, so the boundaries are tested.
    let seq = '0';
    for (const offset of [-3, -2, -1, 0]) {
      const steps = between(6, 10);
      for (let i = 0; i < steps; i++) await step();
      if (offset === 0) break;
      const start = monthStart(offset);
      const end = monthStart(offset + 1);
      const span = end.getTime() - start.getTime();
      seq = await moveRows(m.accountId, seq, (i, count) => {
        if (i === 0) return start;
        if (i === count - 1) return new Date(end.getTime() - 1);
        return new Date(start.getTime() + Math.floor((span * i) / count) + between(0, 1_000));
      });
    }
    // One row exactly at the first instant of a month belongs to it, not the month before.
    const [{ first }] = await dataSource.query(`SELECT min(created_at) AS first FROM wallet_transactions WHERE account_id = $1`, [m.accountId]);
    expect(new Date(first).toISOString()).toBe(monthStart(-3).toISOString());

    const context = `seed ${seed}`;
    for (const currency of ['USD', 'EUR']) {
      let previous: any = null;
      for (const offset of [-4, -3, -2, -1, 0]) {
        const start = monthStart(offset);
        const res = await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(start)}?currency=${currency}`);
        expect([context, res.status]).toEqual([context, 200]);
        const s = res.body.statement;
        expect([context, s]).toEqual([context, await truth(m.accountId, currency, start, monthStart(offset + 1))]);
        expect([context, s.closingAvailableCents]).toEqual([
          context,
          s.openingAvailableCents + s.topupCents - s.heldCents + s.releasedCents + s.conversionInCents - s.conversionOutCents,
        ]);
        expect([context, s.closingReservedCents]).toEqual([context, s.openingReservedCents + s.heldCents - s.capturedCents - s.releasedCents]);
        if (previous) {
          expect([context, s.openingAvailableCents, s.openingReservedCents]).toEqual([context, previous.closingAvailableCents, previous.closingReservedCents]);
        } else {
          // Before any money: nothing at all.
          expect(Object.values(s).filter((v) => typeof v === 'number' && v !== 0)).toEqual([]);
        }
        previous = s;
      }
      const live = await wallet(currency);
      expect([context, previous.closingAvailableCents, previous.closingReservedCents]).toEqual([context, live.availableCents, live.reservedCents]);
    }
    // The history moved every kind of money at least once (so the sums above were not all zeros).
    const kinds = await dataSource.query(`SELECT DISTINCT kind FROM wallet_transactions WHERE account_id = $1`, [m.accountId]);
    expect(kinds.length).toBeGreaterThanOrEqual(4);
    await expectLedgerInvariants(dataSource, m.accountId);

    // Without `currency`: the primary wallet's.
    const primary = await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(monthStart(-1))}`);
    expect(primary.body.statement).toEqual(await truth(m.accountId, 'USD', monthStart(-1), monthStart(0)));
  });

  it('a month that has not begun is 422, on the service clock; the current month is there from its first instant', async () => {
    const m = await seedMerchant(t);
    const next = monthStart(1);
    clock.freeze(new Date(next.getTime() - 1));
    expect((await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(next)}`)).status).toBe(422);
    clock.freeze(next);
    const res = await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(next)}`);
    expect(res.status).toBe(200);
    expect(res.body.statement).toMatchObject({ month: monthOf(next), currency: 'USD', openingAvailableCents: 0, closingAvailableCents: 0 });
    clock.reset();
    const far = await t.api.as(m.readKey).get('/v1/wallet/statements/2999-01');
    expect(far.status).toBe(422);
    expect(far.body.error).toBe('validation');
  });

  it('refuses malformed months and unsupported currencies (400), needs wallet:read, and counts only the account’s own rows', async () => {
    const m = await seedMerchant(t);
    const other = await seedMerchant(t);
    await t.api.as(other.key).post('/v1/topups', { amountCents: 9_900 });
    for (const month of ['2026-13', '2026-00', '2026-1', '26-11', '2026-11-01', 'november', '1969-12']) {
      const res = await t.api.as(m.readKey).get(`/v1/wallet/statements/${month}`);
      expect([month, res.status, res.body.error]).toEqual([month, 400, 'bad_request']);
    }
    for (const currency of ['usd', 'XXX', 'EURO', 'JPY']) {
      const res = await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(monthStart(0))}?currency=${currency}`);
      expect([currency, res.status]).toEqual([currency, 400]);
      expect(res.body.issues.map((i: any) => i.path)).toEqual(['currency']);
    }
    // A supported currency the account holds no wallet in reads as an empty wallet.
    const gbp = await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(monthStart(0))}?currency=GBP`);
    expect(gbp.body.statement).toMatchObject({ currency: 'GBP', openingAvailableCents: 0, topupCents: 0, closingAvailableCents: 0 });
    const usd = await t.api.as(m.readKey).get(`/v1/wallet/statements/${monthOf(monthStart(0))}`);
    expect(usd.body.statement.topupCents).toBe(0);
    expect((await t.api.as(m.writeKey).get(`/v1/wallet/statements/${monthOf(monthStart(0))}`)).status).toBe(403);
    expect((await t.api.get(`/v1/wallet/statements/${monthOf(monthStart(0))}`)).status).toBe(401);
  });

  it('answers the statement as a PDF with Accept: application/pdf: the account’s name, sender name and figures, fonts embedded', async () => {
    const m = await seedMerchant(t, { name: 'Åsa’s Bakery GmbH' });
    expect((await t.api.as(m.key).patch('/v1/account/branding', { senderName: 'Åsa Rewards', brandColor: '#0B6E4F' })).status).toBe(200);
    await t.api.as(m.key).post('/v1/topups', { amountCents: 1_234_567 });
    await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500));
    const month = monthOf(new Date());
    const json = await t.api.as(m.readKey).get(`/v1/wallet/statements/${month}`);
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    const pdf = await getPdf(`/v1/wallet/statements/${month}`, m.readKey);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="statement-${month}-USD.pdf"`);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.text).toContain('Åsa’s Bakery GmbH');
    expect(pdf.text).toContain('Åsa Rewards');
    expect(pdf.text).toMatch(/Top-ups\s+12,345\.67 USD/);
    expect(pdf.text).toMatch(/Held for rewards sent\s+25\.00 USD/);
    expect(pdf.text).toMatch(/Closing available\s+12,320\.67 USD/);
    expect(pdf.text).toMatch(/Closing reserved\s+25\.00 USD/);
    expectFontsEmbedded(pdf.fonts);
    // Nothing outside the document: no URI actions or remote references.
    expect(pdf.bytes.toString('latin1')).not.toMatch(/\/URI|https?:\/\//);
    // Errors stay JSON, whatever was asked for.
    const bad = await getPdf('/v1/wallet/statements/2026-13', m.readKey);
    expect(bad.status).toBe(400);
  });

  it('a receipt of a settled top-up as a PDF: its id, amount, currency, settlement time and the account’s name; 422 unless SUCCEEDED, 404 for another account’s', async () => {
    const m = await seedMerchant(t, { name: 'Receipt Test Co' });
    const other = await seedMerchant(t);
    const topup = (await t.api.as(m.key).post('/v1/topups', { amountCents: 50_075, currency: 'EUR' })).body.topup;
    const receipt = await getPdf(`/v1/topups/${topup.id}/receipt`, m.readKey);
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');
    expect(receipt.text).toContain('Receipt Test Co');
    expect(receipt.text).toContain(topup.id);
    expect(receipt.text).toMatch(/500\.75 EUR/);
    const settled = new Date(topup.completedAt).toISOString().slice(0, 19).replace('T', ' ');
    expect(receipt.text).toContain(`${settled} UTC`);
    expectFontsEmbedded(receipt.fonts);

    expect((await getPdf(`/v1/topups/${topup.id}/receipt`, other.readKey)).status).toBe(404);
    expect((await getPdf('/v1/topups/tu_doesnotexist/receipt', m.readKey)).status).toBe(404);
    expect((await getPdf(`/v1/topups/${topup.id}/receipt`, m.writeKey)).status).toBe(403);

    // A top-up that never settled (a Checkout that expired) has no receipt.
    const [{ id: pending }] = await dataSource.query(
      `INSERT INTO topups (id, account_id, amount_cents, currency, provider, status, completed_at)
       VALUES ('tu_statementexpired', $1, 1000, 'USD', 'stripe', 'EXPIRED', now()) RETURNING id`,
      [m.accountId],
    );
    const refused = await t.api.as(m.readKey).get(`/v1/topups/${pending}/receipt`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('validation');
  });
});
