import { AuditLog } from '@app/audit';
import { CREDENTIALS_REVOKED_CHANNEL } from '@app/auth';
import { PgNotifications } from '@app/core';
import { DashboardClient } from '../support/dashboard-client';
import { addMember, signedIn } from '../support/dashboard';
import { eventually } from '../support/processes';
import { connect, registerApp } from '../support/oauth';
import { choiceReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('Dashboard: API keys and connected apps', () => {
  // Two apps on one database, as two API processes.
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
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

  describe("a key never grants more than its creator's role", () => {
    const ALL_WRITES = ['account:write', 'rewards:write', 'wallet:write', 'webhooks:write'];
    const writesOf = (scopes: string[]) => scopes.filter((scope) => scope.endsWith(':write')).sort();

    /** A read+write key made in the dashboard by `client`, and what the list says of it. */
    async function keyMadeBy(client: DashboardClient, name: string, scopes = ['read', 'write']): Promise<{ id: string; secret: string; apiKey: any }> {
      const created = await client.post('/dashboard/api/api-keys', { name, scopes });
      expect(created.status).toBe(201);
      return { id: created.body.apiKey.id, secret: created.body.secret, apiKey: created.body.apiKey };
    }

    /** What the key can do with the three first-party writes and the two a developer has. */
    async function outcomes(secret: string) {
      const api = a.api.as(secret);
      const endpoint = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/keys', events: ['reward.created'] });
      return {
        topup: (await api.post('/v1/topups', { amountCents: 1_000 })).status,
        branding: (await api.patch('/v1/account/branding', { senderName: 'Keyed Rewards' })).status,
        catalogRules: (await api.put('/v1/account/catalog-rules', { allowedBrandKeys: null, blockedBrandKeys: [] })).status,
        reward: (await api.post('/v1/rewards', choiceReward(100))).status,
        webhook: endpoint.status,
      };
    }

    let merchant: SeededMerchant;
    let owner: DashboardClient;
    beforeAll(async () => {
      merchant = await seedMerchant(a);
      await fund(a, merchant, 100_000);
      owner = await signedIn(a, merchant);
    });

    it("a developer's write key sends rewards and manages webhooks, but top-ups, branding and catalog rules are 403", async () => {
      const developer = await addMember(a, merchant.accountId, 'developer');
      const key = await keyMadeBy(await signedIn(a, developer), 'Developer key');
      expect(key.apiKey).toMatchObject({ scopes: ['read', 'write'], createdBy: { userId: developer.userId, email: developer.email } });
      expect(writesOf(key.apiKey.grantedScopes)).toEqual(['rewards:write', 'webhooks:write']);

      expect(await outcomes(key.secret)).toEqual({ topup: 403, branding: 403, catalogRules: 403, reward: 201, webhook: 201 });
      const refused = await a.api.as(key.secret).post('/v1/topups', { amountCents: 1_000 });
      expect(refused.body).toMatchObject({ error: 'forbidden', message: 'This credential lacks the scope wallet:write that this endpoint requires.' });
    });

    it("an admin's key does what an admin may; an operator's key keeps the read/write rule", async () => {
      const admin = await addMember(a, merchant.accountId, 'admin');
      const key = await keyMadeBy(await signedIn(a, admin), 'Admin key');
      expect(writesOf(key.apiKey.grantedScopes)).toEqual(ALL_WRITES);
      expect(await outcomes(key.secret)).toEqual({ topup: 201, branding: 200, catalogRules: 200, reward: 201, webhook: 201 });
      expect(await outcomes(merchant.key)).toEqual({ topup: 201, branding: 200, catalogRules: 200, reward: 201, webhook: 201 });
    });

    it('the list names who made each key; an operator\'s key has no creator', async () => {
      const developer = await addMember(a, merchant.accountId, 'developer');
      const key = await keyMadeBy(await signedIn(a, developer), 'Listed key', ['read']);
      const listed = (await owner.get('/dashboard/api/api-keys?page_size=100')).body.apiKeys;
      expect(listed.find((k: any) => k.id === key.id)).toMatchObject({ createdBy: { userId: developer.userId, email: developer.email } });
      const operators = listed.filter((k: any) => k.name.startsWith('test'));
      expect(operators).toHaveLength(3);
      for (const operatorKey of operators) expect(operatorKey.createdBy).toBeNull();
      expect(writesOf(operators.find((k: any) => k.name === 'test').grantedScopes)).toEqual(ALL_WRITES);
    });

    it('demoting the creator revokes the keys the new role does not cover; removing them revokes all they made', async () => {
      const person = await addMember(a, merchant.accountId, 'admin');
      const personClient = await signedIn(a, person);
      const writeKey = await keyMadeBy(personClient, 'Admin write');
      const readKey = await keyMadeBy(personClient, 'Admin read', ['read']);
      expect((await a.api.as(writeKey.secret).post('/v1/topups', { amountCents: 1_000 })).status).toBe(201);

      expect((await owner.patch(`/dashboard/api/members/${person.userId}`, { role: 'developer' })).status).toBe(200);
      expect((await a.api.as(writeKey.secret).get('/v1/account')).status).toBe(401);
      expect((await a.api.as(readKey.secret).get('/v1/account')).status).toBe(200);
      await eventually(async () => (await b.api.as(writeKey.secret).get('/v1/account')).status === 401 || undefined, 2_000, 20);

      // As a developer they make a key again; then they leave, and every key they made stops.
      const developerKey = await keyMadeBy(personClient, 'Developer write');
      expect((await a.api.as(developerKey.secret).post('/v1/rewards', choiceReward(100))).status).toBe(201);
      expect((await owner.delete(`/dashboard/api/members/${person.userId}`)).status).toBe(204);
      for (const key of [readKey, developerKey]) expect((await a.api.as(key.secret).get('/v1/account')).status).toBe(401);

      const listed = (await owner.get('/dashboard/api/api-keys?page_size=100')).body.apiKeys;
      for (const key of [writeKey, readKey, developerKey]) {
        expect(listed.find((k: any) => k.id === key.id)).toMatchObject({ revokedAt: expect.any(String), createdBy: { userId: person.userId } });
      }
      const revocations = (await a.app.get(AuditLog).list(merchant.accountId, { page: 1, pageSize: 100, action: 'api_key.revoked' })).entries;
      const reasons = Object.fromEntries(revocations.map((entry) => [entry.targetId, entry.metadata.reason]));
      expect(reasons).toMatchObject({ [writeKey.id]: 'creator_role_changed', [readKey.id]: 'creator_removed', [developerKey.id]: 'creator_removed' });
      expect(revocations.find((entry) => entry.targetId === writeKey.id)!.actor).toMatchObject({ type: 'user', id: merchant.userId });
      // The operator's keys are nobody's: they keep working.
      expect((await a.api.as(merchant.key).get('/v1/account')).status).toBe(200);
    });

  });
});
