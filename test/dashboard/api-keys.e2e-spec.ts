import { CREDENTIALS_REVOKED_CHANNEL } from '@app/auth';
import { PgNotifications } from '@app/core';
import { signedIn } from '../support/dashboard';
import { eventually } from '../support/processes';
import { connect, registerApp } from '../support/oauth';
import { isolatedDatabase, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('Dashboard: API keys and connected apps', () => {
  // Two apps on one database, as two API processes.
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = { ...(await isolatedDatabase()) };
    [a, b] = await Promise.all([startTestApp({ env }), startTestApp({ env })]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('a key made in the dashboard works on /v1, is listed without its secret, and its revocation holds on every instance', async () => {
    const merchant = await seedMerchant(a);
    const client = await signedIn(a, merchant);
    const created = await client.post('/dashboard/api/api-keys', { name: 'Checkout server', scopes: ['read', 'write'] });
    expect(created.status).toBe(201);
    const { apiKey, secret } = created.body;
    expect(secret).toMatch(/^sk_/);
    expect(apiKey).toMatchObject({ name: 'Checkout server', scopes: ['read', 'write'], last4: secret.slice(-4), lastUsedAt: null, revokedAt: null });

    expect((await b.api.as(secret).get('/v1/account')).status).toBe(200);
    await eventually(async () => b.app.get(PgNotifications).live(CREDENTIALS_REVOKED_CHANNEL) || undefined, 5_000, 20);
    expect((await b.api.as(secret).get('/v1/account')).status).toBe(200); // now from memory

    const listed = await eventually(async () => {
      const res = await client.get('/dashboard/api/api-keys?page_size=1');
      return res.body.apiKeys[0].lastUsedAt ? res : undefined;
    }, 5_000, 50);
    expect(listed.body.total).toBe(4);
    expect(listed.body.apiKeys[0].id).toBe(apiKey.id);
    expect(listed.text).not.toContain(secret);

    expect((await client.delete(`/dashboard/api/api-keys/${apiKey.id}`)).status).toBe(204);
    expect((await a.api.as(secret).get('/v1/account')).status).toBe(401);
    await eventually(async () => (await b.api.as(secret).get('/v1/account')).status === 401 || undefined, 2_000, 20);
    const after = await client.get('/dashboard/api/api-keys');
    expect(after.body.apiKeys[0].revokedAt).not.toBeNull();
  });

  it("another account's key is not found (404); bad scopes are 400", async () => {
    const merchant = await seedMerchant(a);
    const other = await seedMerchant(a);
    const client = await signedIn(a, merchant);
    const foreign = (await (await signedIn(a, other)).get('/dashboard/api/api-keys')).body.apiKeys[0].id;
    expect((await client.delete(`/dashboard/api/api-keys/${foreign}`)).status).toBe(404);
    expect((await a.api.as(other.key).get('/v1/account')).status).toBe(200);
    expect((await client.post('/dashboard/api/api-keys', { name: 'x', scopes: ['admin'] })).status).toBe(400);
    expect((await client.post('/dashboard/api/api-keys', { name: 'x', scopes: [] })).status).toBe(400);
  });

  it('connected apps: listed, and disconnecting kills every token of the connection', async () => {
    const merchant = await seedMerchant(a);
    const app = await registerApp(a, ['account:read']);
    const tokens = await connect(a, app, merchant, 'account:read');
    expect((await a.api.as(tokens.access_token).get('/v1/account')).status).toBe(200);
    const admin = await signedIn(a, merchant);
    const listed = await admin.get('/dashboard/api/connected-apps');
    expect(listed.body.connectedApps).toEqual([
      { id: expect.stringMatching(/^conn_/), clientId: app.clientId, appName: expect.any(String), scopes: ['account:read'], createdAt: expect.any(String) },
    ]);
    const id = listed.body.connectedApps[0].id;
    expect((await admin.delete(`/dashboard/api/connected-apps/${id}`)).status).toBe(204);
    expect((await a.api.as(tokens.access_token).get('/v1/account')).status).toBe(401);
    expect((await admin.get('/dashboard/api/connected-apps')).body.connectedApps).toEqual([]);
    expect((await admin.delete(`/dashboard/api/connected-apps/${id}`)).status).toBe(404);
  });
});
