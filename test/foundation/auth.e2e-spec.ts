import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '@app/account';
import { AUTH_FAILURES_PER_MINUTE, CREDENTIAL_CACHE_TTL_MS, CREDENTIALS_REVOKED_CHANNEL } from '@app/auth';
import { PgNotifications } from '@app/core';
import { eventually } from '../support/processes';
import { isolatedDatabase, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('authentication and scopes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('no Authorization header: 401 unauthorized', async () => {
    const res = await t.api.get('/v1/account');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: expect.stringContaining('Bearer') });
  });

  it.each([
    ['an unknown key', 'Bearer sk_doesNotExist0000000000000000000000000000000'],
    ['a non-bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['an unknown credential kind', 'Bearer xyz_123'],
  ])('%s: 401 unauthorized', async (_, header) => {
    const res = await t.api.get('/v1/account', { token: null, headers: { authorization: header } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('a revoked key stops working at once: 401', async () => {
    const merchant = await seedMerchant(t);
    const keys = t.app.get(ApiKeyService);
    const { id, key } = await keys.create(merchant.accountId, ['read']);
    expect((await t.api.as(key).get('/v1/account')).status).toBe(200);
    const revoked = await keys.revoke(id);
    expect(new Date(revoked.revokedAt).getTime()).toBeLessThanOrEqual(Date.now());
    const res = await t.api.as(key).get('/v1/account');
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('keys are stored only as hashes', async () => {
    const merchant = await seedMerchant(t);
    const { id, key } = await t.app.get(ApiKeyService).create(merchant.accountId, ['read']);
    expect(key).toMatch(/^sk_[A-Za-z0-9]{43}$/);
    const rows = await t.app.get(DataSource).query('SELECT * FROM api_keys WHERE id = $1', [id]);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(3, 20));
  });

  it('an address that keeps failing authentication is refused with 429, even with a valid key', async () => {
    // A separate app, so its own counters (its own QUEUE_PREFIX) take the failures.
    const isolated = await startTestApp();
    try {
      const merchant = await seedMerchant(isolated);
      // Used once first, so the key is known (cached) when the address gets blocked.
      expect((await isolated.api.as(merchant.key).get('/v1/account')).status).toBe(200);
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
        const res = await isolated.api.as('sk_wrong').get('/v1/account');
        expect(res.status).toBe(401);
      }
      const blocked = await isolated.api.as('sk_wrong').get('/v1/account');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toBe('rate_limited');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      const evenValid = await isolated.api.as(merchant.key).get('/v1/account');
      expect(evenValid.status).toBe(429);
      expect(evenValid.body.message).toContain('failed authentication');
      const { key: unusedKey } = await isolated.app.get(ApiKeyService).create(merchant.accountId, ['read']);
      expect((await isolated.api.as(unusedKey).get('/v1/account')).status).toBe(429);
    } finally {
      await isolated.close();
    }
  });

  describe('credentials are kept in memory briefly, and revocation still ends them at once', () => {
    // A second database: its listener is the only one there, and cutting it off touches no other app of this file.
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: await isolatedDatabase() });
    });
    afterAll(() => t.close());

    /** Until revocations are heard: from then on a resolved key is served from memory. */
    const listening = () => eventually(async () => t.app.get(PgNotifications).live(CREDENTIALS_REVOKED_CHANNEL) || undefined, 5_000, 20);
    const revokeInDatabase = (id: string) =>
      // Another process's revocation: straight into the database, not through this app.
      withClient(t, (client) => client.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]));

    it('a key revoked by another process answers 401 within moments, not after the cache time', async () => {
      const merchant = await seedMerchant(t);
      const { id, key } = await t.app.get(ApiKeyService).create(merchant.accountId, ['read']);
      expect((await t.api.as(key).get('/v1/account')).status).toBe(200);
      await listening();
      expect((await t.api.as(key).get('/v1/account')).status).toBe(200); // now from memory
      await revokeInDatabase(id);
      const started = Date.now();
      await eventually(async () => (await t.api.as(key).get('/v1/account')).status === 401 || undefined, 5_000, 20);
      expect(Date.now() - started).toBeLessThan(CREDENTIAL_CACHE_TTL_MS / 2);
    });

    it('while the LISTEN connection is lost nothing is trusted from memory, so a revocation then is not missed', async () => {
      const merchant = await seedMerchant(t);
      const { id, key } = await t.app.get(ApiKeyService).create(merchant.accountId, ['read']);
      expect((await t.api.as(key).get('/v1/account')).status).toBe(200);
      await listening();
      expect((await t.api.as(key).get('/v1/account')).status).toBe(200); // now from memory
      // Cut the app's listener off, then revoke: that announcement can reach nobody.
      const cut = await withClient(t, (client) =>
        client.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'listener'`,
        ),
      );
      expect(cut.rowCount).toBe(1);
      await revokeInDatabase(id);
      await eventually(async () => (await t.api.as(key).get('/v1/account')).status === 401 || undefined, 5_000, 20);
      // And once the listener is back, keys are served (and cached) again.
      const again = await t.app.get(ApiKeyService).create(merchant.accountId, ['read']);
      await eventually(async () => (await t.api.as(again.key).get('/v1/account')).status === 200 || undefined, 5_000, 50);
    });
  });
});

async function withClient<T>(t: TestApp, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
