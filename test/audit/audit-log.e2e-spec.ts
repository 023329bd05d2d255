import { DataSource } from 'typeorm';
import { AuditLog } from '@app/audit';
import { WEBHOOK_DNS_RESOLVER } from '@app/webhooks';
import { adminDataSource } from '../support/database-admin';
import { connect, registerApp } from '../support/oauth';
import { catalogPicks, choiceReward, fund } from '../support/rewards';
import { addMember, signedIn } from '../support/dashboard';
import { FakeDns } from '../support/fake-dns';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('audit log', () => {
  let t: TestApp;
  let db: DataSource;
  let audit: AuditLog;

  beforeAll(async () => {
    // The endpoints here are at public names (hooks.example.com): names are answered by the DNS double, never by
    // the machine's resolver, and no worker runs to deliver to them (docs/operations.md, "Tests are hermetic").
    t = await startTestApp({ overrides: [{ provide: WEBHOOK_DNS_RESOLVER, useValue: new FakeDns() }] });
    db = t.app.get(DataSource);
    audit = t.app.get(AuditLog);
  });
  afterAll(async () => {
    await t.close();
  });

  const entries = async (merchant: SeededMerchant, action?: string) =>
    (await audit.list(merchant.accountId, { page: 1, pageSize: 100, action })).entries;

  async function keyOf(merchant: SeededMerchant, name: string): Promise<{ id: string; last4: string }> {
    const [row] = await db.query(`SELECT id, secret_last4 FROM api_keys WHERE account_id = $1 AND name = $2`, [merchant.accountId, name]);
    return { id: row.id, last4: row.secret_last4 };
  }

  it('records each audited /v1 change made with an API key: actor, target, metadata and client address', async () => {
    const merchant = await seedMerchant(t);
    const api = t.api.as(merchant.key);
    const key = await keyOf(merchant, 'test');
    const picks = await catalogPicks(t, merchant.key);

    const topup = await api.post('/v1/topups', { amountCents: 5_000 });
    expect(topup.status).toBe(201);
    expect((await api.patch('/v1/account/branding', { senderName: 'Acme Rewards' })).status).toBe(200);
    expect((await api.put('/v1/account/catalog-rules', { allowedBrandKeys: null, blockedBrandKeys: [picks.fixedEur.brandKey] })).status).toBe(200);
    const endpoint = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/audit', events: ['reward.created'] });
    expect(endpoint.status).toBe(201);
    const endpointId = endpoint.body.webhookEndpoint.id;
    expect((await api.post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`, {})).status).toBe(200);
    expect((await api.delete(`/v1/webhook-endpoints/${endpointId}`)).status).toBe(204);
    const reward = await api.post('/v1/rewards', choiceReward(1_000));
    expect(reward.status).toBe(201);
    expect((await api.post(`/v1/rewards/${reward.body.reward.id}/cancel`)).status).toBe(200);

    const log = await entries(merchant);
    expect(log.map((e) => e.action)).toEqual([
      'reward.canceled',
      'reward.created',
      'webhook_endpoint.deleted',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.created',
      'catalog_rules.updated',
      'branding.updated',
      'topup.created',
    ]);
    for (const entry of log) {
      expect(entry.id).toMatch(/^aud_[0-9A-Za-z]+$/);
      expect(entry.actor).toEqual({ type: 'api_key', id: key.id, label: `test (…${key.last4})` });
      expect(entry.ipAddress).toBe('127.0.0.1');
    }
    const byAction = Object.fromEntries(log.map((e) => [e.action, e]));
    expect(byAction['reward.created']).toMatchObject({
      targetType: 'reward',
      targetId: reward.body.reward.id,
      metadata: { valueCents: 1_000, currency: 'USD', type: 'CHOICE', source: 'api' },
    });
    expect(byAction['topup.created']).toMatchObject({
      targetType: 'topup',
      targetId: topup.body.topup.id,
      metadata: { amountCents: 5_000, currency: 'USD', provider: 'fake' },
    });
    expect(byAction['branding.updated']).toMatchObject({
      targetType: 'account',
      targetId: merchant.accountId,
      metadata: { before: { senderName: null }, after: { senderName: 'Acme Rewards' } },
    });
    expect(byAction['catalog_rules.updated'].metadata).toEqual({
      before: { allowedBrandKeys: null, blockedBrandKeys: [] },
      after: { allowedBrandKeys: null, blockedBrandKeys: [picks.fixedEur.brandKey] },
    });
    expect(byAction['webhook_endpoint.created']).toMatchObject({ targetType: 'webhook_endpoint', targetId: endpointId });
    expect(byAction['webhook_endpoint.deleted']).toMatchObject({ targetId: endpointId, metadata: { url: 'https://hooks.example.com/audit' } });
    // The log never holds a secret.
    expect(JSON.stringify(log)).not.toContain('whsec_');
    expect(byAction['reward.canceled']).toMatchObject({ targetType: 'reward', targetId: reward.body.reward.id, metadata: { type: 'CHOICE', faceValueCents: 1_000 } });
  });

  it('names the OAuth app, not the token, when a marketplace app makes the change', async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 5_000);
    const app = await registerApp(t, ['rewards:write', 'webhooks:write']);
    const tokens = await connect(t, app, merchant, 'rewards:write webhooks:write');
    const api = t.api.as(tokens.access_token);
    const reward = await api.post('/v1/rewards', choiceReward(1_000));
    expect((await api.post(`/v1/rewards/${reward.body.reward.id}/cancel`)).status).toBe(200);
    const [name] = await db.query(`SELECT name FROM oauth_clients WHERE id = $1`, [app.clientId]);

    const [entry] = await entries(merchant, 'reward.canceled');
    expect(entry.actor).toEqual({ type: 'oauth_app', id: app.clientId, label: name.name });
  });

  it("a webhook endpoint's URL change is recorded with the old and new host only; other changes are not URL changes", async () => {
    const merchant = await seedMerchant(t);
    const api = t.api.as(merchant.key);
    const created = await api.post('/v1/webhook-endpoints', { url: 'https://old.example.com/hooks?token=old-receiver-secret', events: ['reward.created'] });
    const id = created.body.webhookEndpoint.id;
    expect((await api.patch(`/v1/webhook-endpoints/${id}`, { description: 'renamed' })).status).toBe(200);
    expect((await api.patch(`/v1/webhook-endpoints/${id}`, { url: 'https://new.example.com/in/new-receiver-secret' })).status).toBe(200);
    expect((await api.patch(`/v1/webhook-endpoints/${id}`, { url: 'https://new.example.com/in/new-receiver-secret' })).status).toBe(200);

    const updates = await entries(merchant, 'webhook_endpoint.updated');
    expect(updates).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'api_key' }),
        targetType: 'webhook_endpoint',
        targetId: id,
        metadata: { url: { fromHost: 'old.example.com', toHost: 'new.example.com' } },
      }),
    ]);
    expect(JSON.stringify(updates)).not.toMatch(/receiver-secret/);
  });

  it('a change that fails writes no entry, and an entry that cannot be written undoes the change', async () => {
    const merchant = await seedMerchant(t);
    const api = t.api.as(merchant.key);
    await fund(t, merchant, 5_000);
    const reward = await api.post('/v1/rewards', choiceReward(1_000));
    expect((await api.post(`/v1/rewards/${reward.body.reward.id}/cancel`)).status).toBe(200);
    // Refused changes leave no trace: a second cancel, an unknown endpoint, an unknown brand key.
    expect((await api.post(`/v1/rewards/${reward.body.reward.id}/cancel`)).status).toBe(422);
    expect((await api.delete('/v1/webhook-endpoints/we_unknown')).status).toBe(404);
    expect((await api.post('/v1/webhook-endpoints/we_unknown/rotate-secret', {})).status).toBe(404);
    expect((await api.put('/v1/account/catalog-rules', { allowedBrandKeys: ['no-such-brand'], blockedBrandKeys: [] })).status).toBe(422);
    expect((await entries(merchant)).map((e) => e.action)).toEqual(['reward.canceled', 'reward.created', 'topup.created']);

    // Make the log refuse this account's branding entries: the branding change must roll back with it.
    const trigger = `audit_refuse_${merchant.accountId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
    const owner = await adminDataSource(process.env.DATABASE_URL!);
    await owner.query(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.account_id = '${merchant.accountId}' AND NEW.action = 'branding.updated' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await owner.query(`CREATE TRIGGER ${trigger} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      // Not through the contract-checking client: a 500 is nobody's documented answer.
      const res = await fetch(`${t.baseUrl}/v1/account/branding`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${merchant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ senderName: 'Never' }),
      });
      expect(res.status).toBe(500);
    } finally {
      await owner.query(`DROP TRIGGER ${trigger} ON audit_log`);
      await owner.query(`DROP FUNCTION ${trigger}()`);
      await owner.destroy();
    }
    expect((await api.get('/v1/account')).body.account.senderName).toBeNull();
  });

  it('the database refuses to change or delete an entry: the service may not, and the owner role meets the trigger', async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 1_000);
    const [entry] = await entries(merchant);
    const attempts: [string, unknown[]][] = [
      [`UPDATE audit_log SET action = 'topup.deleted' WHERE id = $1`, [entry.id]],
      [`UPDATE audit_log SET metadata = '{}' WHERE account_id = $1`, [merchant.accountId]],
      [`DELETE FROM audit_log WHERE id = $1`, [entry.id]],
      [`TRUNCATE audit_log`, []],
    ];
    const owner = await adminDataSource(process.env.DATABASE_URL!);
    try {
      for (const [sql, params] of attempts) {
        await expect(db.query(sql, params)).rejects.toThrow(/permission denied for table audit_log/);
        await expect(owner.query(sql, params)).rejects.toThrow(/append-only/);
      }
    } finally {
      await owner.destroy();
    }
    expect(await entries(merchant)).toEqual([entry]);
  });

  it('lists newest first, a page at a time, with the total, filtered by action, and only the account\'s own', async () => {
    const [merchant, other] = await Promise.all([seedMerchant(t), seedMerchant(t)]);
    for (const amountCents of [100, 200, 300]) expect((await t.api.as(merchant.key).post('/v1/topups', { amountCents })).status).toBe(201);
    expect((await t.api.as(merchant.key).patch('/v1/account/branding', { brandColor: '#112233' })).status).toBe(200);
    await fund(t, other, 999);

    const first = await audit.list(merchant.accountId, { page: 1, pageSize: 2 });
    expect(first.total).toBe(4);
    expect(first.entries.map((e) => [e.action, e.metadata.amountCents])).toEqual([
      ['branding.updated', undefined],
      ['topup.created', 300],
    ]);
    const second = await audit.list(merchant.accountId, { page: 2, pageSize: 2 });
    expect(second.entries.map((e) => e.metadata.amountCents)).toEqual([200, 100]);
    const topups = await audit.list(merchant.accountId, { page: 1, pageSize: 10, action: 'topup.created' });
    expect(topups.total).toBe(3);
    expect(topups.entries.every((e) => e.action === 'topup.created')).toBe(true);
    expect(JSON.stringify(await entries(merchant))).not.toContain('999');
  });

  it('GET /dashboard/api/audit-log lists entries for an admin session; an API key (not a dashboard credential), a developer and anonymous callers get none', async () => {
    const merchant = await seedMerchant(t);
    await t.api.as(merchant.key).patch('/v1/account/branding', { senderName: 'Audited Sender' });
    const owner = await signedIn(t, merchant);
    const listed = await owner.get('/dashboard/api/audit-log?action=branding.updated');
    expect(listed.status).toBe(200);
    expect(listed.body.entries).toEqual([expect.objectContaining({ action: 'branding.updated', actor: expect.objectContaining({ type: 'api_key' }) })]);
    // Dashboard actions land in the same log, naming the person who signed in.
    const signIns = await owner.get('/dashboard/api/audit-log?action=session.signed_in');
    expect(signIns.body.entries[0]).toMatchObject({ actor: { type: 'user', label: merchant.email.toLowerCase() } });
    const developer = await signedIn(t, await addMember(t, merchant.accountId, 'developer'));
    expect((await developer.get('/dashboard/api/audit-log')).status).toBe(403);

    const get = (authorization?: string) =>
      fetch(`${t.baseUrl}/dashboard/api/audit-log`, { headers: authorization ? { authorization } : {} });
    const withKey = await get(`Bearer ${merchant.key}`);
    expect(withKey.status).toBe(401);
    expect(await withKey.json()).toMatchObject({ error: 'unauthorized' });
    expect((await get()).status).toBe(401);
    // Nor is it part of the public contract.
    const document = (await (await fetch(`${t.baseUrl}/docs/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/dashboard'))).toEqual([]);
  });
});
