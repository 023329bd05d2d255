import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { CatalogPicks, catalogPicks, choiceReward, countRows, fixedReward, fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

describe('POST /v1/rewards', () => {
  let t: TestApp;
  let worker: TestWorker;
  let dataSource: DataSource;
  let merchant: SeededMerchant;
  let picks: CatalogPicks;
  const merchants: SeededMerchant[] = [];

  const newMerchant = async (fundsCents = 0) => {
    const m = await seedMerchant(t);
    merchants.push(m);
    if (fundsCents) await fund(t, m, fundsCents);
    return m;
  };
  const wallet = async (m: SeededMerchant) => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
  const rewardCount = (m: SeededMerchant) => countRows(dataSource, 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId]);

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    merchant = await newMerchant(1_000_000);
    picks = await catalogPicks(t, merchant.key);
  });
  afterAll(async () => {
    for (const m of merchants) await expectLedgerInvariants(dataSource, m.accountId);
    await worker?.close();
    await t.close();
  });

  it('sends a CHOICE reward: 201, SENT, funds held, link returned, events recorded', async () => {
    const before = await wallet(merchant);
    const res = await t.api.as(merchant.key).post(
      '/v1/rewards',
      choiceReward(5_000, { message: 'Thanks for all the fish', externalId: 'order-42', campaign: 'spring', recipient: recipient({ lastName: 'Lovelace' }) }),
    );
    expect(res.status).toBe(201);
    const { reward, redemptionUrl } = res.body;
    expect(reward).toMatchObject({
      id: expect.stringMatching(/^rw_/),
      type: 'CHOICE',
      status: 'SENT',
      faceValueCents: 5_000,
      remainingValueCents: 5_000,
      currency: 'USD',
      recipientFirstName: 'Ada',
      recipientLastName: 'Lovelace',
      message: 'Thanks for all the fish',
      externalId: 'order-42',
      campaign: 'spring',
      source: 'api',
      utid: null,
      allowedBrandKeys: null,
      issuedCards: [],
    });
    expect(reward.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent']);
    expect(redemptionUrl).toMatch(new RegExp(`^${t.baseUrl}/r/[A-Za-z0-9]{43}$`));
    expect(redemptionUrl).not.toContain(reward.id);
    expect(await wallet(merchant)).toMatchObject({
      availableCents: before.availableCents - 5_000,
      reservedCents: before.reservedCents + 5_000,
    });
    const outbox = await dataSource.query(`SELECT id, type, data FROM events WHERE data->>'id' = $1 ORDER BY seq`, [reward.id]);
    expect(outbox.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent']);
    expect(outbox[0].data).toEqual({
      id: reward.id,
      status: 'CREATED',
      valueCents: 5_000,
      remainingValueCents: 5_000,
      currency: 'USD',
      fx: null,
      externalId: 'order-42',
    });
    // The timeline shares the webhook events' ids.
    expect(outbox.map((e: any) => e.id)).toEqual(reward.events.map((e: any) => e.id));
  });

  it('sends a FIXED reward: its card is PENDING at once, then ISSUED, the reward REDEEMED and the hold captured', async () => {
    const m = await newMerchant(100_000);
    const res = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd));
    expect(res.status).toBe(201);
    const reward = res.body.reward;
    expect(reward).toMatchObject({ type: 'FIXED', status: 'SENT', remainingValueCents: 0, utid: picks.fixedUsd.utid, brandName: expect.any(String) });
    expect(reward.issuedCards).toHaveLength(1);
    expect(reward.issuedCards[0]).toMatchObject({ status: 'PENDING', amountCents: picks.fixedUsd.valueCents, credentials: [] });

    const done = await eventually(async () => {
      const r = (await t.api.as(m.key).get(`/v1/rewards/${reward.id}`)).body.reward;
      return r.status === 'REDEEMED' ? r : undefined;
    });
    const card = done.issuedCards[0];
    expect(card.status).toBe('ISSUED');
    expect(card.credentials.map((c: any) => c.type).sort()).toEqual(['barcode', 'date', 'text', 'url']);
    expect(done.redeemedAt).toEqual(expect.any(String));
    expect(done.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent', 'card.issued', 'reward.redeemed']);
    expect(await wallet(m)).toEqual({ availableCents: 100_000 - picks.fixedUsd.valueCents, reservedCents: 0, currency: 'USD' });
    const kinds = (await t.api.as(m.key).get('/v1/wallet/transactions')).body.transactions.map((x: any) => x.kind);
    expect(kinds).toEqual(['CAPTURE', 'HOLD', 'TOPUP']);
  });

  it.each([
    ['no recipient', { type: 'CHOICE', valueCents: 100 }, ['recipient']],
    ['a bad e-mail', { type: 'CHOICE', valueCents: 100, recipient: { email: 'nope', firstName: 'A' } }, ['recipient.email']],
    ['no first name', { type: 'CHOICE', valueCents: 100, recipient: { email: 'a@b.test' } }, ['recipient.firstName']],
    ['an unknown type', { type: 'GIFT', valueCents: 100, recipient: recipient() }, ['type']],
    ['a fractional value', { type: 'CHOICE', valueCents: 10.5, recipient: recipient() }, ['valueCents']],
    ['a zero value', { type: 'CHOICE', valueCents: 0, recipient: recipient() }, ['valueCents']],
    ['a value over the limit', { type: 'CHOICE', valueCents: 100_000_001, recipient: recipient() }, ['valueCents']],
    ['a long message', { type: 'CHOICE', valueCents: 100, recipient: recipient(), message: 'x'.repeat(1001) }, ['message']],
    ['a long externalId', { type: 'CHOICE', valueCents: 100, recipient: recipient(), externalId: 'x'.repeat(101) }, ['externalId']],
    ['an unknown field', { type: 'CHOICE', valueCents: 100, recipient: recipient(), source: 'dashboard' }, ['source']],
    ['FIXED without utid', { type: 'FIXED', valueCents: 100, recipient: recipient() }, ['utid']],
    ['CHOICE with a utid', { type: 'CHOICE', valueCents: 100, recipient: recipient(), utid: 'U1' }, ['utid']],
    ['FIXED with an expiry', { type: 'FIXED', utid: 'U1', valueCents: 100, recipient: recipient(), expiresAt: '2099-01-01T00:00:00Z' }, ['expiresAt']],
    ['an expiry in the past', { type: 'CHOICE', valueCents: 1000, recipient: recipient(), expiresAt: '2020-01-01T00:00:00Z' }, ['expiresAt']],
    ['an expiry that is no timestamp', { type: 'CHOICE', valueCents: 1000, recipient: recipient(), expiresAt: 'tomorrow' }, ['expiresAt']],
  ])('400 for %s, naming the field, with nothing held or stored', async (_, body, paths) => {
    const m = await newMerchant(10_000);
    const res = await t.api.as(m.key).post('/v1/rewards', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.issues.map((i: any) => i.path)).toEqual(expect.arrayContaining(paths));
    expect(await wallet(m)).toMatchObject({ availableCents: 10_000, reservedCents: 0 });
    expect(await rewardCount(m)).toBe(0);
  });

  it('422 for what the catalog cannot fulfil, with nothing held', async () => {
    const m = await newMerchant(1_000_000);
    const cases: [Record<string, unknown>, RegExp][] = [
      [fixedReward(picks.fixedUsd, { utid: 'U0000000' }), /not in the catalog/],
      [fixedReward(picks.fixedUsd, { valueCents: picks.fixedUsd.valueCents + 1 }), /face value/],
      [fixedReward(picks.variableUsd, { valueCents: picks.variableUsd.minCents! - 1 }), /outside that range/],
      [fixedReward(picks.variableUsd, { valueCents: picks.variableUsd.maxCents! + 1 }), /outside that range/],
      [fixedReward(picks.fixedEur, { currency: 'USD' }), /is in EUR; a FIXED reward is in its item's currency/],
      [choiceReward(5_000, { allowedBrandKeys: [picks.usdBrandKey, 'no-such-brand'] }), /no-such-brand/],
      [choiceReward(1), /cheapest/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api.as(m.key).post('/v1/rewards', body);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 422, error: 'validation' });
      expect(res.body.message).toMatch(message);
    }
    expect(await wallet(m)).toMatchObject({ availableCents: 1_000_000, reservedCents: 0 });
    expect(await rewardCount(m)).toBe(0);
  });

  it('a variable item takes any value in its range', async () => {
    const m = await newMerchant(100_000);
    const res = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.variableUsd, { valueCents: picks.variableUsd.maxCents }));
    expect(res.status).toBe(201);
  });

  it('402 insufficient_funds leaves the wallet untouched and stores nothing', async () => {
    const m = await newMerchant(999);
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000));
    expect(res.status).toBe(402);
    expect(res.body.error).toBe('insufficient_funds');
    expect(await wallet(m)).toMatchObject({ availableCents: 999, reservedCents: 0 });
    expect(await rewardCount(m)).toBe(0);
    expect(await countRows(dataSource, 'SELECT 1 FROM events WHERE account_id = $1 AND type LIKE $2', [m.accountId, 'reward.%'])).toBe(0);
  });

  it('30 concurrent sends against a wallet that affords 10: exactly 10 created, 20 get 402', async () => {
    const m = await newMerchant(10 * 1_000);
    const responses = await Promise.all(Array.from({ length: 30 }, () => t.api.as(m.key).post('/v1/rewards', choiceReward(1_000))));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(20);
    expect(await rewardCount(m)).toBe(10);
    expect(await wallet(m)).toMatchObject({ availableCents: 0, reservedCents: 10_000 });
  });

  describe('Idempotency-Key', () => {
    it('a retry replays the first response with 200 and Idempotent-Replayed, charging nothing again', async () => {
      const m = await newMerchant(10_000);
      const body = choiceReward(2_500);
      const first = await t.api.as(m.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'order-1001' } });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await t.api.as(m.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'order-1001' } });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await rewardCount(m)).toBe(1);
      expect(await wallet(m)).toMatchObject({ availableCents: 7_500 });
    });

    it('40 concurrent requests with one key (twice the pool) make one reward; the others replay it', async () => {
      const m = await newMerchant(100_000);
      const body = choiceReward(1_000);
      const responses = await Promise.all(
        Array.from({ length: 40 }, () => t.api.as(m.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'burst' } })),
      );
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      expect(responses.filter((r) => r.status === 200)).toHaveLength(39);
      expect(new Set(responses.map((r) => r.body.reward.id)).size).toBe(1);
      expect(await rewardCount(m)).toBe(1);
      expect(await wallet(m)).toMatchObject({ availableCents: 99_000, reservedCents: 1_000 });
    });

    it('the same key with a different body is 422', async () => {
      const m = await newMerchant(10_000);
      await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000), { headers: { 'idempotency-key': 'k-1' } });
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000), { headers: { 'idempotency-key': 'k-1' } });
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/different request/);
      expect(await rewardCount(m)).toBe(1);
    });

    it('a 402 stores nothing: after a top-up, the same key goes through', async () => {
      const m = await newMerchant(500);
      const body = choiceReward(1_000);
      expect((await t.api.as(m.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'retry-me' } })).status).toBe(402);
      await fund(t, m, 1_000);
      const res = await t.api.as(m.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'retry-me' } });
      expect(res.status).toBe(201);
    });

    it('keys are scoped to the account', async () => {
      const [a, b] = [await newMerchant(5_000), await newMerchant(5_000)];
      const body = choiceReward(1_000);
      const ra = await t.api.as(a.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'shared' } });
      const rb = await t.api.as(b.key).post('/v1/rewards', body, { headers: { 'idempotency-key': 'shared' } });
      expect([ra.status, rb.status]).toEqual([201, 201]);
      expect(ra.body.reward.id).not.toBe(rb.body.reward.id);
    });

    it('a key longer than 100 characters is 400', async () => {
      const res = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(100), { headers: { 'idempotency-key': 'k'.repeat(101) } });
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('Idempotency-Key');
    });

    it('the stored response is not readable from the database without the key', async () => {
      const m = await newMerchant(5_000);
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000), { headers: { 'idempotency-key': 'secret-check' } });
      const token = res.body.redemptionUrl.split('/r/')[1];
      const rows = JSON.stringify(await dataSource.query(`SELECT * FROM idempotency_keys WHERE scope = $1`, [m.accountId]));
      expect(rows).not.toContain(token);
      expect(rows).not.toContain('secret-check');
      const links = JSON.stringify(await dataSource.query(`SELECT * FROM redemption_links WHERE reward_id = $1`, [res.body.reward.id]));
      expect(links).not.toContain(token);
    });
  });

  describe('dry run', () => {
    it('runs every check, funds included, and charges, stores and sends nothing', async () => {
      const m = await newMerchant(3_000);
      const ok = await t.api.as(m.key).post('/v1/rewards?dry_run=true', choiceReward(2_000));
      expect(ok.status).toBe(200);
      // The reward as it would be created, without ids (docs/rewards.md, Dry run).
      expect(ok.body).toEqual({ reward: expect.objectContaining({ type: 'CHOICE', status: 'SENT', faceValueCents: 2_000, currency: 'USD', fx: null }) });
      expect(ok.body.reward.id).toBeUndefined();
      expect(ok.body.reward.events.map((e: any) => [e.type, e.id])).toEqual([
        ['reward.created', undefined],
        ['reward.sent', undefined],
      ]);
      expect((await t.api.as(m.key).post('/v1/rewards?dry_run=true', choiceReward(3_001))).status).toBe(402);
      // A EUR card from an account that holds no EUR: 402 naming EUR, as the send would answer.
      const eur = await t.api.as(m.key).post('/v1/rewards?dry_run=true', fixedReward(picks.fixedEur));
      expect({ status: eur.status, message: eur.body.message }).toEqual({ status: 402, message: expect.stringContaining('EUR') });
      expect((await t.api.as(m.key).post('/v1/rewards?dry_run=true', fixedReward(picks.fixedUsd, { valueCents: 1 }))).status).toBe(422);
      expect((await t.api.as(m.key).post('/v1/rewards?dry_run=true', { type: 'CHOICE' })).status).toBe(400);
      expect(await rewardCount(m)).toBe(0);
      expect(await wallet(m)).toMatchObject({ availableCents: 3_000, reservedCents: 0 });
      expect(await countRows(dataSource, 'SELECT 1 FROM mail_jobs j JOIN rewards r ON r.id = j.reward_id WHERE r.account_id = $1', [m.accountId])).toBe(0);
    });
  });

  it('needs rewards:write; a read-only key gets 403 and nothing happens', async () => {
    const m = await newMerchant(5_000);
    const res = await t.api.as(m.readKey).post('/v1/rewards', choiceReward(1_000));
    expect(res.status).toBe(403);
    expect(await rewardCount(m)).toBe(0);
  });
});
