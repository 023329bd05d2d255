import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('account', () => {
  let t: TestApp;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t, { name: 'Acme Rewards', currency: 'EUR' });
  });
  afterAll(() => t.close());

  it('GET /v1/account returns the account of the key', async () => {
    const res = await t.api.as(merchant.readKey).get('/v1/account');
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({
      id: merchant.accountId,
      name: 'Acme Rewards',
      currency: 'EUR',
      senderName: null,
      logoUrl: null,
      brandColor: null,
    });
    expect(res.body.account.id).toMatch(/^acct_[A-Za-z0-9]{22}$/);
  });

  it('PATCH /v1/account/branding changes only the supplied fields, and null clears one', async () => {
    const api = t.api.as(merchant.key);
    let res = await api.patch('/v1/account/branding', {
      senderName: 'Acme Team',
      logoUrl: 'https://cdn.acme.test/logo.png',
      brandColor: '#12ab9f',
    });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({
      senderName: 'Acme Team',
      logoUrl: 'https://cdn.acme.test/logo.png',
      brandColor: '#12AB9F',
    });

    res = await api.patch('/v1/account/branding', { brandColor: '#000000' });
    expect(res.body.account).toMatchObject({ senderName: 'Acme Team', logoUrl: 'https://cdn.acme.test/logo.png', brandColor: '#000000' });

    res = await api.patch('/v1/account/branding', {});
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ senderName: 'Acme Team', brandColor: '#000000' });

    res = await api.patch('/v1/account/branding', { senderName: null });
    expect(res.body.account.senderName).toBeNull();
    expect((await api.get('/v1/account')).body.account).toMatchObject({ senderName: null, brandColor: '#000000' });
  });

  it('refuses bad branding with a 400 naming every invalid field, and changes nothing', async () => {
    const api = t.api.as(merchant.key);
    const before = (await api.get('/v1/account')).body.account;
    const res = await api.patch('/v1/account/branding', {
      senderName: 'x'.repeat(101),
      logoUrl: 'http://insecure.test/logo.png',
      brandColor: 'red',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['brandColor', 'logoUrl', 'senderName']);
    expect((await api.get('/v1/account')).body.account).toEqual(before);
  });

  it('refuses fields that are not part of the request (no mass assignment)', async () => {
    const res = await t.api.as(merchant.key).patch('/v1/account/branding', { name: 'Evil', currency: 'JPY' });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['currency', 'name']);
    expect((await t.api.as(merchant.key).get('/v1/account')).body.account).toMatchObject({ name: 'Acme Rewards', currency: 'EUR' });
  });

  it('branding needs write: a read-only key gets 403, a write-only key may change it', async () => {
    const denied = await t.api.as(merchant.readKey).patch('/v1/account/branding', { senderName: 'Nope' });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'forbidden', message: expect.stringContaining('account:write') });
    const allowed = await t.api.as(merchant.writeKey).patch('/v1/account/branding', { senderName: 'Writer' });
    expect(allowed.status).toBe(200);
  });

  it('a write-only key cannot read the account', async () => {
    const res = await t.api.as(merchant.writeKey).get('/v1/account');
    expect(res.status).toBe(403);
  });

  it("never shows another account's data: each key sees its own account", async () => {
    const other = await seedMerchant(t, { name: 'Other Co' });
    const res = await t.api.as(other.readKey).get('/v1/account');
    expect(res.body.account.id).toBe(other.accountId);
    expect(res.body.account.name).toBe('Other Co');
  });
});
