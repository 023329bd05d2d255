import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('webhook endpoints API', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let other: SeededMerchant;

  beforeAll(async () => {
    // No worker runs in this file: the endpoints here are at public names, and are never delivered to (docs/operations.md, "Tests are hermetic").
    t = await startTestApp();
    [merchant, other] = await Promise.all([seedMerchant(t), seedMerchant(t)]);
  });
  afterAll(() => t.close());

  const create = (key: string, body: unknown) => t.api.as(key).post('/v1/webhook-endpoints', body);

  it('creates an endpoint and shows its secret once; reads never show it', async () => {
    const res = await create(merchant.key, { url: 'https://hooks.example.com/rewards', events: ['reward.created', 'wallet.credited'], description: 'prod' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      webhookEndpoint: {
        id: expect.stringMatching(/^we_/),
        url: 'https://hooks.example.com/rewards',
        description: 'prod',
        events: ['reward.created', 'wallet.credited'],
        active: true,
        pausedReason: null,
        previousSecretExpiresAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{40,}$/),
    });
    const { id } = res.body.webhookEndpoint;
    const { secret } = res.body;

    const got = await t.api.as(merchant.readKey).get(`/v1/webhook-endpoints/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.webhookEndpoint).toEqual(res.body.webhookEndpoint);
    expect(got.text).not.toContain(secret);
    expect(got.text).not.toContain('whsec_');

    const listed = await t.api.as(merchant.readKey).get('/v1/webhook-endpoints');
    expect(listed.status).toBe(200);
    expect(listed.body.webhookEndpoints.map((e: { id: string }) => e.id)).toContain(id);
    expect(listed.text).not.toContain('whsec_');
  });

  it('an empty events list subscribes to all events', async () => {
    const res = await create(merchant.key, { url: 'https://hooks.example.com/all', events: [] });
    expect(res.status).toBe(201);
    expect(res.body.webhookEndpoint.events).toEqual([]);
  });

  it.each([
    [{ url: 'not a url', events: [] }, 'url'],
    [{ url: 'ftp://hooks.example.com/x', events: [] }, 'url'],
    [{ url: 'https://user:pw@hooks.example.com/x', events: [] }, 'url'],
    [{ url: 'https://hooks.example.com/x', events: ['reward.exploded'] }, 'events'],
    [{ url: 'https://hooks.example.com/x', events: 'reward.created' }, 'events'],
    [{ url: 'https://hooks.example.com/x' }, 'events'],
    [{ url: 'https://hooks.example.com/x', events: [], secret: 'whsec_mine' }, 'secret'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const res = await create(merchant.key, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(field);
  });

  it('an unknown event name is refused with the list of valid names', async () => {
    const res = await create(merchant.key, { url: 'https://hooks.example.com/x', events: ['wallet.credited', 'wallet.debited'] });
    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toEqual({ path: 'events', message: expect.stringContaining('wallet.credited') });
  });

  it('updates url, events, description and pauses/resumes without deleting', async () => {
    const { body } = await create(merchant.key, { url: 'https://hooks.example.com/a', events: [] });
    const id = body.webhookEndpoint.id;
    const api = t.api.as(merchant.key);

    const patched = await api.patch(`/v1/webhook-endpoints/${id}`, {
      url: 'https://hooks.example.com/b',
      events: ['card.issued'],
      description: 'moved',
      active: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.webhookEndpoint).toMatchObject({ url: 'https://hooks.example.com/b', events: ['card.issued'], description: 'moved', active: false });
    expect(patched.text).not.toContain('whsec_');

    expect((await api.get(`/v1/webhook-endpoints/${id}`)).body.webhookEndpoint.active).toBe(false);
    const resumed = await api.patch(`/v1/webhook-endpoints/${id}`, { active: true });
    expect(resumed.body.webhookEndpoint.active).toBe(true);

    const bad = await api.patch(`/v1/webhook-endpoints/${id}`, { events: ['nope'] });
    expect(bad.status).toBe(400);
    const badUrl = await api.patch(`/v1/webhook-endpoints/${id}`, { url: 'gopher://x' });
    expect(badUrl.status).toBe(400);
    for (const body of [{ url: null }, { events: null }, { active: null }, { active: 'no' }, { secret: 'whsec_mine' }]) {
      const res = await api.patch(`/v1/webhook-endpoints/${id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe(Object.keys(body)[0]);
    }
    expect((await api.get(`/v1/webhook-endpoints/${id}`)).body.webhookEndpoint).toMatchObject({
      url: 'https://hooks.example.com/b',
      events: ['card.issued'],
      active: true,
    });
    const cleared = await api.patch(`/v1/webhook-endpoints/${id}`, { description: null });
    expect(cleared.body.webhookEndpoint.description).toBeNull();
  });

  it('deletes an endpoint: 204, then 404', async () => {
    const { body } = await create(merchant.key, { url: 'https://hooks.example.com/gone', events: [] });
    const id = body.webhookEndpoint.id;
    const api = t.api.as(merchant.key);
    const deleted = await api.delete(`/v1/webhook-endpoints/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.get(`/v1/webhook-endpoints/${id}`)).status).toBe(404);
    expect((await api.delete(`/v1/webhook-endpoints/${id}`)).status).toBe(404);
  });

  it('rotating the secret returns a new one once; the grace period is bounded to 24 h', async () => {
    const { body } = await create(merchant.key, { url: 'https://hooks.example.com/rot', events: [] });
    const id = body.webhookEndpoint.id;
    const api = t.api.as(merchant.key);

    const rotated = await api.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { keepPreviousForSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(body.secret);
    const expires = Date.parse(rotated.body.webhookEndpoint.previousSecretExpiresAt);
    expect(Math.abs(expires - (Date.now() + 3600_000))).toBeLessThan(60_000);

    const immediate = await api.post(`/v1/webhook-endpoints/${id}/rotate-secret`, {});
    expect(immediate.status).toBe(200);
    expect(immediate.body.webhookEndpoint.previousSecretExpiresAt).toBeNull();

    for (const keepPreviousForSeconds of [86_401, -1, 1.5, '60']) {
      const res = await api.post(`/v1/webhook-endpoints/${id}/rotate-secret`, { keepPreviousForSeconds });
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('keepPreviousForSeconds');
    }
  });

  it('scopes: a read key cannot change anything, a write-only key cannot read', async () => {
    const { body } = await create(merchant.key, { url: 'https://hooks.example.com/scopes', events: [] });
    const id = body.webhookEndpoint.id;
    const read = t.api.as(merchant.readKey);
    const write = t.api.as(merchant.writeKey);

    for (const res of [
      await read.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/x', events: [] }),
      await read.patch(`/v1/webhook-endpoints/${id}`, { active: false }),
      await read.delete(`/v1/webhook-endpoints/${id}`),
      await read.post(`/v1/webhook-endpoints/${id}/rotate-secret`, {}),
      await read.post(`/v1/webhook-endpoints/${id}/test`),
      await read.post(`/v1/webhook-endpoints/${id}/deliveries/whd_x/retry`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    for (const res of [
      await write.get('/v1/webhook-endpoints'),
      await write.get(`/v1/webhook-endpoints/${id}`),
      await write.get(`/v1/webhook-endpoints/${id}/deliveries`),
      await write.get(`/v1/webhook-endpoints/${id}/deliveries/whd_x`),
    ]) {
      expect(res.status).toBe(403);
    }
    expect((await t.api.get('/v1/webhook-endpoints')).status).toBe(401);
    // Still active: the refused PATCH changed nothing.
    expect((await read.get(`/v1/webhook-endpoints/${id}`)).body.webhookEndpoint.active).toBe(true);
  });

  it("another account's endpoint is a 404 on every route, and is left untouched", async () => {
    const { body } = await create(other.key, { url: 'https://hooks.example.com/theirs', events: [] });
    const id = body.webhookEndpoint.id;
    const api = t.api.as(merchant.key);
    for (const res of [
      await api.get(`/v1/webhook-endpoints/${id}`),
      await api.patch(`/v1/webhook-endpoints/${id}`, { active: false }),
      await api.delete(`/v1/webhook-endpoints/${id}`),
      await api.post(`/v1/webhook-endpoints/${id}/rotate-secret`, {}),
      await api.post(`/v1/webhook-endpoints/${id}/test`),
      await api.get(`/v1/webhook-endpoints/${id}/deliveries`),
      await api.get(`/v1/webhook-endpoints/${id}/deliveries/whd_x`),
      await api.post(`/v1/webhook-endpoints/${id}/deliveries/whd_x/retry`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    const list = await api.get('/v1/webhook-endpoints');
    expect(list.body.webhookEndpoints.map((e: { id: string }) => e.id)).not.toContain(id);
    expect((await t.api.as(other.key).get(`/v1/webhook-endpoints/${id}`)).body.webhookEndpoint.active).toBe(true);
  });

  it('lists endpoints newest first, paginated', async () => {
    const fresh = await seedMerchant(t);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await create(fresh.key, { url: `https://hooks.example.com/${n}`, events: [] })).body.webhookEndpoint.id);
    const page1 = await t.api.as(fresh.key).get('/v1/webhook-endpoints?page_size=2');
    expect(page1.body.total).toBe(3);
    expect(page1.body.webhookEndpoints.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    const page2 = await t.api.as(fresh.key).get('/v1/webhook-endpoints?page_size=2&page=2');
    expect(page2.body.webhookEndpoints.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
  });
});
