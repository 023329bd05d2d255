import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, splittablePair, tokenOf } from '../support/redemption';
import { CatalogPicks, catalogPicks, choiceReward, countRows, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

describe('redemption JSON API (/r/{token}/api)', () => {
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let picks: CatalogPicks;
  let recipient: RecipientClient;
  let dataSource: DataSource;
  let usdCatalog: any[];

  const send = async (body: Record<string, unknown>) => {
    const res = await t.api.as(m.key).post('/v1/rewards', body);
    expect(res.status).toBe(201);
    return { id: res.body.reward.id as string, token: tokenOf(res.body.redemptionUrl) };
  };
  const merchantView = async (id: string) => (await t.api.as(m.key).get(`/v1/rewards/${id}?include_credentials=true`)).body.reward;
  const settled = (id: string, status: string) =>
    eventually(async () => {
      const reward = await merchantView(id);
      return reward.status === status && !reward.issuedCards.some((c: any) => c.status === 'PENDING') && reward;
    });

  beforeAll(async () => {
    // Generous per-address budget: this file alone makes a few hundred requests from 127.0.0.1.
    t = await startTestApp({ env: { REDEMPTION_RATE_LIMIT_PER_MINUTE: '100000', EXPIRY_SWEEP_INTERVAL_MS: '300' } });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    recipient = new RecipientClient(t);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 1_000_000);
    await t.api.as(m.key).patch('/v1/account/branding', { senderName: 'Acme People', logoUrl: 'https://cdn.acme.test/logo.png', brandColor: '#0A7E4F' });
    picks = await catalogPicks(t, m.key);
    usdCatalog = (await t.api.as(m.key).get('/v1/catalog?currency=USD')).body.brands;
  });
  afterAll(async () => {
    await expectLedgerInvariants(dataSource, m.accountId);
    await worker?.close();
    await t.close();
  });

  it('FIXED: the public view with branding, and the issued card with its full credentials; no recipient e-mail, nothing to pick', async () => {
    const { id, token } = await send(fixedReward(picks.fixedUsd, { message: 'Thanks for all your work' }));
    const state = await eventually(async () => {
      const res = await recipient.state(token);
      return res.body.cards[0]?.status === 'ISSUED' && res;
    });
    expect(state.status).toBe(200);
    expect(state.headers.get('cache-control')).toBe('no-store');
    expect(state.body.reward).toEqual({
      type: 'FIXED',
      status: 'REDEEMED',
      faceValueCents: picks.fixedUsd.valueCents,
      remainingValueCents: 0,
      currency: 'USD',
      recipientFirstName: 'Ada',
      language: null,
      message: 'Thanks for all your work',
      senderName: 'Acme People',
      logoUrl: 'https://cdn.acme.test/logo.png',
      brandColor: '#0A7E4F',
      expiresAt: null,
      brandName: expect.any(String),
      brandImageUrl: expect.any(String),
      canPick: false,
    });
    expect(state.body.brands).toEqual([]);
    expect(JSON.stringify(state.body)).not.toContain('@example.test');
    const [card] = state.body.cards;
    expect(card).toMatchObject({ utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents, status: 'ISSUED' });
    expect(card.credentials.map((c: any) => c.type).sort()).toEqual(['barcode', 'date', 'text', 'url']);
    // The same values the merchant sees with include_credentials=true: nothing masked for the recipient.
    expect(card.credentials).toEqual((await merchantView(id)).issuedCards[0].credentials);
    expect(card.credentials.every((c: any) => !c.value.includes('•'))).toBe(true);
  });

  it('every view while a card issues shows one committed state: an issued card never beside the status from before it', async () => {
    // No worker while the rewards are sent, so every tab sees the card PENDING first; the worker starts
    // once each link has been seen so, and issues the cards while the tabs go on polling.
    await worker.close();
    const sent = await Promise.all(Array.from({ length: 6 }, () => send(fixedReward(picks.fixedUsd))));
    const views: { status: string; card: string | undefined }[] = [];
    const seenPending = new Set<string>();
    let restarted: Promise<void> | undefined;
    // Several recipients' tabs polling as fast as they can while the worker issues the cards.
    await Promise.all(
      sent.flatMap(({ token }) =>
        Array.from({ length: 3 }, async () => {
          for (;;) {
            const res = await recipient.state(token);
            expect(res.status).toBe(200);
            const card = res.body.cards[0]?.status;
            views.push({ status: res.body.reward.status, card });
            if (card === 'ISSUED') return;
            expect(['PENDING', undefined]).toContain(card);
            if (card === 'PENDING') seenPending.add(token);
            if (seenPending.size === sent.length) restarted ??= startTestWorker(t).then((started) => void (worker = started));
          }
        }),
      ),
    );
    await restarted;
    const mixed = views.filter(({ status, card }) => (card === 'ISSUED') !== (status === 'REDEEMED'));
    expect(mixed).toEqual([]);
    expect(views.some(({ card }) => card === 'PENDING')).toBe(true);
  });

  it('CHOICE: only items in the reward currency, only the allowed brands, amounts in cents', async () => {
    const allowed = await send(choiceReward(5_000, { allowedBrandKeys: [picks.usdBrandKey] }));
    const state = (await recipient.state(allowed.token)).body;
    expect(state.reward).toMatchObject({ type: 'CHOICE', status: 'OPENED', remainingValueCents: 5_000, canPick: true });
    expect(state.brands.map((b: any) => b.brandKey)).toEqual([picks.usdBrandKey]);
    const catalogBrand = usdCatalog.find((b) => b.brandKey === picks.usdBrandKey);
    expect(state.brands[0].items.map((i: any) => i.utid).sort()).toEqual(catalogBrand.items.map((i: any) => i.utid).sort());

    const open = (await recipient.state((await send(choiceReward(5_000))).token)).body;
    const utids = open.brands.flatMap((b: any) => b.items.map((i: any) => i.utid));
    expect(utids.sort()).toEqual(usdCatalog.flatMap((b) => b.items.map((i: any) => i.utid)).sort());
    expect(utids).not.toContain(picks.fixedEur.utid);
    const variable = open.brands.flatMap((b: any) => b.items).find((i: any) => i.utid === picks.variableUsd.utid);
    expect(variable).toEqual({
      utid: picks.variableUsd.utid,
      rewardName: expect.any(String),
      valueType: 'VARIABLE_VALUE',
      faceValueCents: null,
      minValueCents: picks.variableUsd.minCents,
      maxValueCents: picks.variableUsd.maxCents,
    });
  });

  it('opening marks the reward OPENED and records reward.opened once, even with concurrent opens of page and API', async () => {
    const { id, token } = await send(choiceReward(2_000));
    const opens = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? recipient.state(token) : recipient.page(token))));
    expect(opens.map((r) => r.status)).toEqual(Array(8).fill(200));
    await recipient.state(token);
    const reward = await merchantView(id);
    expect(reward.status).toBe('OPENED');
    expect(reward.openedAt).not.toBeNull();
    expect(reward.events.filter((e: any) => e.type === 'reward.opened')).toHaveLength(1);
    expect(await countRows(dataSource, `SELECT 1 FROM events WHERE type = 'reward.opened' AND data->>'id' = $1`, [id])).toBe(1);
  });

  it('opening a cancelled reward records the view but keeps it CANCELED', async () => {
    const { id, token } = await send(choiceReward(2_000));
    await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`);
    const state = (await recipient.state(token)).body;
    expect(state.reward).toMatchObject({ status: 'CANCELED', canPick: false, remainingValueCents: 0 });
    expect(state.brands).toEqual([]);
    const reward = await merchantView(id);
    expect(reward.status).toBe('CANCELED');
    expect(reward.openedAt).not.toBeNull();
    expect(reward.events.map((e: any) => e.type)).toEqual(['reward.created', 'reward.sent', 'reward.canceled', 'reward.opened']);
  });

  it('refuses picks that break the rules with 422 and changes nothing', async () => {
    const value = picks.variableUsd.minCents! + 50;
    const { id, token } = await send(choiceReward(value, { allowedBrandKeys: [picks.variableUsd.brandKey, picks.fixedUsd.brandKey] }));
    const otherBrandItem = usdCatalog
      .filter((b) => ![picks.variableUsd.brandKey, picks.fixedUsd.brandKey].includes(b.brandKey))
      .flatMap((b) => b.items)
      .find((i: any) => i.valueType === 'VARIABLE_VALUE' && i.minValue * 100 <= value);
    const refused = [
      { utid: picks.variableUsd.utid, amountCents: value + 50 }, // above what is left
      { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.minCents! - 1 }, // below the item's range
      { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.maxCents! + 1 }, // above the item's range
      { utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents - 1 }, // not the face value
      { utid: otherBrandItem.utid, amountCents: Math.round(otherBrandItem.minValue * 100) }, // brand not allowed
      { utid: picks.fixedEur.utid, amountCents: picks.fixedEur.valueCents }, // another currency
      { utid: 'no-such-item', amountCents: 100 },
    ];
    for (const body of refused) {
      const res = await recipient.pick(token, body);
      expect([body, res.status, res.body.error]).toEqual([body, 422, 'validation']);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await recipient.pick(token, { utid: picks.variableUsd.utid, amountCents: 0 })).status).toBe(400);
    expect((await recipient.pick(token, { utid: picks.variableUsd.utid, amountCents: 100, extra: 1 } as any)).status).toBe(400);
    const reward = await merchantView(id);
    expect(reward).toMatchObject({ remainingValueCents: value, issuedCards: [] });
  });

  it('cancelled, expired, redeemed and FIXED rewards take no picks (422); an unknown token is a JSON 404', async () => {
    const item = { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.valueCents };
    const canceled = await send(choiceReward(5_000));
    await t.api.as(m.key).post(`/v1/rewards/${canceled.id}/cancel`);
    const expired = await send(choiceReward(5_000, { expiresAt: new Date(Date.now() + 1_000).toISOString() }));
    const redeemed = await send(choiceReward(picks.fixedUsd.valueCents));
    expect((await recipient.pick(redeemed.token, { utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents })).status).toBe(201);
    await settled(redeemed.id, 'REDEEMED');
    const fixed = await send(fixedReward(picks.fixedUsd));
    await settled(expired.id, 'EXPIRED');

    for (const { token } of [canceled, expired, redeemed, fixed]) {
      const res = await recipient.pick(token, item);
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation');
    }
    expect((await recipient.pick(canceled.token, item)).body.message).toMatch(/canceled/);
    expect((await recipient.state(expired.token)).body.reward).toMatchObject({ status: 'EXPIRED', canPick: false });

    const unknown = 'A'.repeat(43);
    for (const res of [await recipient.state(unknown), await recipient.pick(unknown, item)]) {
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toMatchObject({ error: 'not_found' });
    }
    const page = await recipient.page(unknown);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('Link not found');
  });

  it('a double click with one Idempotency-Key makes one card: 201, then the replay with 200 and Idempotent-Replayed', async () => {
    const { id, token } = await send(choiceReward(5_000));
    const body = { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.valueCents };
    const [a, b] = await Promise.all([recipient.pick(token, body, 'click-1'), recipient.pick(token, body, 'click-1')]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const replay = a.status === 200 ? a : b;
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(a.body.card.id).toBe(b.body.card.id);
    expect(a.body.card).toMatchObject({ utid: body.utid, amountCents: body.amountCents, status: 'PENDING', currency: 'USD' });
    const later = await recipient.pick(token, body, 'click-1');
    expect([later.status, later.body.card.id]).toEqual([200, a.body.card.id]);
    expect((await recipient.pick(token, { ...body, amountCents: body.amountCents + 1 }, 'click-1')).status).toBe(422);
    const reward = await merchantView(id);
    expect(reward.issuedCards).toHaveLength(1);
    expect(reward.remainingValueCents).toBe(5_000 - body.amountCents);
  });

  it('concurrent picks never spend more than the remaining value', async () => {
    const face = picks.fixedUsd.valueCents;
    const { id, token } = await send(choiceReward(face * 3));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => recipient.pick(token, { utid: picks.fixedUsd.utid, amountCents: face }, `race-${i}`)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 422)).toHaveLength(5);
    const reward = await settled(id, 'REDEEMED');
    expect(reward.remainingValueCents).toBe(0);
    expect(reward.issuedCards.map((c: any) => c.status)).toEqual(['ISSUED', 'ISSUED', 'ISSUED']);
  });

  it('a picked card that fails issuance gives its value back to pick again, and the page says so', async () => {
    const { token } = await send(choiceReward(5_000));
    const amount = picks.failingVariable.minCents!;
    expect((await recipient.pick(token, { utid: picks.failingVariable.utid, amountCents: amount })).status).toBe(201);
    const state = await eventually(async () => {
      const s = (await recipient.state(token)).body;
      return s.cards[0]?.status === 'FAILED' && s;
    });
    expect(state.reward).toMatchObject({ remainingValueCents: 5_000, canPick: true });
    const page = await recipient.page(token);
    expect(page.body).toContain('This card could not be issued. Its value was returned, so you can pick another card.');
    expect(page.body).toContain('Pick a card');
  });

  it('picks until the value is used: PARTIALLY_REDEEMED at the first pick, REDEEMED once every card is issued', async () => {
    const pair = await splittablePair(t, m.key, 5_000);
    const { id, token } = await send(choiceReward(5_000));
    await recipient.state(token);
    const first = await recipient.pick(token, { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents });
    expect(first.status).toBe(201);
    let state = (await recipient.state(token)).body;
    expect(state.reward).toMatchObject({ status: 'PARTIALLY_REDEEMED', remainingValueCents: 5_000 - pair.fixed.valueCents });
    const second = await recipient.pick(token, { utid: pair.variable.utid, amountCents: 5_000 - pair.fixed.valueCents });
    expect(second.status).toBe(201);
    state = await eventually(async () => {
      const s = (await recipient.state(token)).body;
      return s.reward.status === 'REDEEMED' && s;
    });
    expect(state.reward).toMatchObject({ remainingValueCents: 0, canPick: false });
    expect(state.cards.map((c: any) => [c.utid, c.status, c.credentials.length > 0])).toEqual([
      [pair.fixed.utid, 'ISSUED', true],
      [pair.variable.utid, 'ISSUED', true],
    ]);
    const reward = await merchantView(id);
    const types = reward.events.map((e: any) => e.type);
    expect(types.filter((type: string) => type === 'reward.partially_redeemed')).toHaveLength(1);
    expect(types.filter((type: string) => type === 'reward.redeemed')).toHaveLength(1);
    expect(types.filter((type: string) => type === 'card.issued')).toHaveLength(2);
    expect(reward.redeemedAt).not.toBeNull();
    await expectLedgerInvariants(dataSource, m.accountId);
  });
});
