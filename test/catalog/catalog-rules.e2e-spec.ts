import { DataSource } from 'typeorm';
import { CATALOG_CHANGED_CHANNEL, CatalogRulesService } from '@app/catalog';
import { PgNotifications } from '@app/core';
import { connect, registerApp } from '../support/oauth';
import { eventually } from '../support/processes';
import { RecipientClient, splittablePair, tokenOf } from '../support/redemption';
import { catalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const brandKeys = (body: { brands: { brandKey: string }[] }) => body.brands.map((b) => b.brandKey);

describe('catalog rules', () => {
  let t: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    [t, second] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), second.close()]);
  });

  const rulesOf = async (merchant: SeededMerchant) => (await t.api.as(merchant.readKey).get('/v1/account/catalog-rules')).body.catalogRules;
  const put = (merchant: SeededMerchant, body: unknown, key = merchant.key) => t.api.as(key).put('/v1/account/catalog-rules', body);

  it('start as every brand allowed; a PUT replaces both lists and a GET shows them', async () => {
    const merchant = await seedMerchant(t);
    expect(await rulesOf(merchant)).toEqual({ allowedBrandKeys: null, blockedBrandKeys: [] });

    let res = await put(merchant, { allowedBrandKeys: ['amazon-us', 'amazon-us', 'starbucks'], blockedBrandKeys: ['amazon-us'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ catalogRules: { allowedBrandKeys: ['amazon-us', 'starbucks'], blockedBrandKeys: ['amazon-us'] } });
    expect(await rulesOf(merchant)).toEqual(res.body.catalogRules);

    res = await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: [] });
    expect(res.status).toBe(200);
    expect(await rulesOf(merchant)).toEqual({ allowedBrandKeys: null, blockedBrandKeys: [] });
  });

  it('refuses a partial or empty allow list (400), unknown brand keys (422), read-only keys and OAuth tokens (403)', async () => {
    const merchant = await seedMerchant(t);
    await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: ['amazon-us'] });

    for (const body of [{ blockedBrandKeys: [] }, { allowedBrandKeys: null }, { allowedBrandKeys: [], blockedBrandKeys: [] }, { allowedBrandKeys: 'amazon-us', blockedBrandKeys: [] }, { allowedBrandKeys: null, blockedBrandKeys: [7] }, { allowedBrandKeys: null, blockedBrandKeys: [], extra: 1 }]) {
      const res = await put(merchant, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad_request');
    }
    const unknown = await put(merchant, { allowedBrandKeys: ['amazon-us', 'no-such-brand'], blockedBrandKeys: ['also-unknown'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ error: 'validation', message: expect.stringContaining('no-such-brand, also-unknown') });
    expect((await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: [] }, merchant.readKey)).status).toBe(403);

    const app = await registerApp(t, ['account:read', 'catalog:read']);
    const tokens = await connect(t, app, merchant, 'account:read catalog:read');
    const asApp = t.api.as(tokens.access_token);
    expect((await asApp.get('/v1/account/catalog-rules')).body.catalogRules.blockedBrandKeys).toEqual(['amazon-us']);
    const byApp = await asApp.put('/v1/account/catalog-rules', { allowedBrandKeys: null, blockedBrandKeys: [] });
    expect(byApp.status).toBe(403);
    // Nothing changed by any refused request.
    expect(await rulesOf(merchant)).toEqual({ allowedBrandKeys: null, blockedBrandKeys: ['amazon-us'] });
  });

  it("the catalog and brand lookup show only allowed brands, for that account only, and ETags follow the rules", async () => {
    const [merchant, other] = await Promise.all([seedMerchant(t), seedMerchant(t)]);
    const api = t.api.as(merchant.readKey);
    const before = await api.get('/v1/catalog');
    const etag = before.headers.get('etag')!;
    expect(brandKeys(before.body)).toContain('amazon-us');
    const brandEtag = (await api.get('/v1/catalog/brands/amazon-us')).headers.get('etag')!;

    expect((await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: ['amazon-us'] })).status).toBe(200);
    const after = await api.get('/v1/catalog', { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(brandKeys(after.body)).toEqual(brandKeys(before.body).filter((key) => key !== 'amazon-us'));
    expect(after.headers.get('etag')).not.toBe(etag);
    // Its new ETag revalidates as usual.
    expect((await api.get('/v1/catalog', { headers: { 'if-none-match': after.headers.get('etag')! } })).status).toBe(304);
    // A blocked brand is missing, even to a revalidation naming its old ETag or `*`.
    for (const condition of [undefined, brandEtag, '*']) {
      const res = await api.get('/v1/catalog/brands/amazon-us', { headers: condition ? { 'if-none-match': condition } : {} });
      expect(res.status).toBe(404);
    }
    // Another account is not affected.
    expect(brandKeys((await t.api.as(other.readKey).get('/v1/catalog')).body)).toContain('amazon-us');
    expect((await t.api.as(other.readKey).get('/v1/catalog/brands/amazon-us')).status).toBe(200);

    // An allow list narrows to those brands; filters still apply on top.
    await put(merchant, { allowedBrandKeys: ['amazon-us', 'amazon-uk', 'starbucks'], blockedBrandKeys: ['amazon-uk'] });
    expect(brandKeys((await api.get('/v1/catalog')).body).sort()).toEqual(['amazon-us', 'starbucks']);
    expect(brandKeys((await api.get('/v1/catalog?search=amazon')).body)).toEqual(['amazon-us']);
    expect((await api.get('/v1/catalog/brands/amazon-uk')).status).toBe(404);
    expect((await api.get('/v1/catalog/brands/amazon-de')).status).toBe(404);
    expect((await api.get('/v1/catalog/brands/starbucks')).status).toBe(200);
  });

  it('refuses a FIXED reward of a disallowed brand and a CHOICE naming one (422); a CHOICE without a list offers only allowed brands', async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 50_000);
    const api = t.api.as(merchant.key);
    const picks = await catalogPicks(t, merchant.key);
    const pair = await splittablePair(t, merchant.key, 5_000);
    await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: [picks.fixedUsd.brandKey, pair.fixed.brandKey] });

    const fixed = await api.post('/v1/rewards', fixedReward(picks.fixedUsd));
    expect(fixed.status).toBe(422);
    expect(fixed.body.message).toContain(picks.fixedUsd.brandKey);
    const dryRun = await api.post('/v1/rewards?dry_run=true', fixedReward(picks.fixedUsd));
    expect(dryRun.status).toBe(422);
    const choice = await api.post('/v1/rewards', choiceReward(5_000, { allowedBrandKeys: [pair.variable.brandKey, pair.fixed.brandKey] }));
    expect(choice.status).toBe(422);
    expect(choice.body.message).toContain(pair.fixed.brandKey);
    const bulk = await api.post('/v1/rewards/bulk', { rewards: [fixedReward(picks.fixedUsd), choiceReward(5_000)] });
    expect(bulk.status).toBe(207);
    expect(bulk.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([false, true]);
    expect((await api.get('/v1/wallet')).body.wallet.availableCents).toBe(45_000);

    const open = await api.post('/v1/rewards', choiceReward(5_000));
    expect(open.status).toBe(201);
    const recipient = new RecipientClient(t);
    const offered = brandKeys((await recipient.state(tokenOf(open.body.redemptionUrl))).body);
    expect(offered).toContain(pair.variable.brandKey);
    expect(offered).not.toContain(picks.fixedUsd.brandKey);
    expect(offered).not.toContain(pair.fixed.brandKey);
    // The page the recipient opens offers the same.
    const page = await recipient.page(tokenOf(open.body.redemptionUrl));
    expect(page.body).toContain(escapeHtml(pair.variable.brandName));
    expect(page.body).not.toContain(escapeHtml(pair.fixed.brandName));
  });

  it("the recipient may pick only brands the account's rules allow at the time of the pick", async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 20_000);
    const pair = await splittablePair(t, merchant.key, 5_000);
    const sent = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(5_000, { allowedBrandKeys: [pair.fixed.brandKey, pair.variable.brandKey] }));
    expect(sent.status).toBe(201);
    const token = tokenOf(sent.body.redemptionUrl);
    const recipient = new RecipientClient(t);

    // Blocked after the reward was sent: no longer offered, and a pick of it is refused.
    await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: [pair.fixed.brandKey] });
    expect(brandKeys((await recipient.state(token)).body)).toEqual([pair.variable.brandKey]);
    const refused = await recipient.pick(token, { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents });
    expect(refused.status).toBe(422);
    expect((await recipient.state(token)).body.reward.remainingValueCents).toBe(5_000);

    // Allowed again: offered and picked.
    await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: [] });
    expect(brandKeys((await recipient.state(token)).body).sort()).toEqual([pair.fixed.brandKey, pair.variable.brandKey].sort());
    const picked = await recipient.pick(token, { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents });
    expect(picked.status).toBe(201);

    // A card already picked stays the recipient's when its brand is blocked afterwards.
    await put(merchant, { allowedBrandKeys: [pair.variable.brandKey], blockedBrandKeys: [] });
    const state = (await recipient.state(token)).body;
    expect(state.cards.map((card: { id: string }) => card.id)).toContain(picked.body.card.id);
    expect(brandKeys(state)).toEqual([pair.variable.brandKey]);
  });

  it('a change made on one instance is applied at once by another, to the catalog and to sends', async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 10_000);
    const picks = await catalogPicks(t, merchant.key);
    const elsewhere = second.api.as(merchant.key);
    // The other instance has the rules and the catalog in memory before the change.
    expect(brandKeys((await elsewhere.get('/v1/catalog')).body)).toContain(picks.fixedUsd.brandKey);
    expect((await elsewhere.post('/v1/rewards', fixedReward(picks.fixedUsd))).status).toBe(201);

    expect((await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: [picks.fixedUsd.brandKey] })).status).toBe(200);
    await eventually(async () => !brandKeys((await elsewhere.get('/v1/catalog')).body).includes(picks.fixedUsd.brandKey), 2_000, 20);
    expect((await elsewhere.post('/v1/rewards', fixedReward(picks.fixedUsd))).status).toBe(422);
  });

  it('reads the rules from memory while the catalog revision is unchanged (no query per send)', async () => {
    const merchant = await seedMerchant(t);
    await put(merchant, { allowedBrandKeys: null, blockedBrandKeys: ['amazon-us'] });
    const rules = t.app.get(CatalogRulesService);
    const notifications = t.app.get(PgNotifications);
    await rules.of(merchant.accountId);
    // Memory is trusted only while the database's announcements are being received.
    await eventually(async () => notifications.live(CATALOG_CHANGED_CHANNEL));
    await rules.of(merchant.accountId);
    const dataSource = t.app.get(DataSource);
    const query = jest.spyOn(dataSource, 'createQueryRunner');
    try {
      expect(await rules.allows(merchant.accountId, 'amazon-us')).toBe(false);
      expect(await rules.allows(merchant.accountId, 'starbucks')).toBe(true);
      expect(query).not.toHaveBeenCalled();
    } finally {
      query.mockRestore();
    }
  });
});
