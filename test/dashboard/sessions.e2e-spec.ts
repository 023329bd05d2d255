import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CredentialResolverRegistry, SessionStore } from '@app/auth';
import { DashboardClient } from '../support/dashboard-client';
import { addMember, signedIn } from '../support/dashboard';
import { connect, registerApp } from '../support/oauth';
import { choiceReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('Dashboard: sessions as a credential', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ env: {} });
    db = t.app.get(DataSource);
    merchant = await seedMerchant(t);
  });
  afterAll(() => t.close());

  it('signing in sets an HttpOnly, SameSite=Strict cookie and answers the session body', async () => {
    const client = new DashboardClient(t.baseUrl);
    const res = await client.signIn(merchant.email, merchant.password);
    expect(client.setCookies[0]).toMatch(/^dashboard_session=[A-Za-z0-9]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(res.body).toEqual({
      user: { id: merchant.userId, email: merchant.email.toLowerCase(), twoFactorEnabled: false },
      memberships: [{ accountId: merchant.accountId, accountName: expect.any(String), role: 'owner' }],
      currentAccountId: merchant.accountId,
      // What the session may do there: the owner's scopes, which the web app offers its pages by.
      scopes: expect.arrayContaining(['rewards:write', 'wallet:write', 'team:manage', 'audit_log:read']),
      csrfToken: expect.stringMatching(/^[A-Za-z0-9]{43}$/),
    });
    expect((await client.get('/dashboard/api/session')).body).toEqual(res.body);
    // The server keeps only the token's hash.
    const token = client.cookie!.split('=')[1];
    expect(await db.query(`SELECT 1 FROM sessions WHERE token_hash = $1`, [token])).toEqual([]);
    const sha256 = createHash('sha256').update(token).digest('hex');
    expect(await db.query(`SELECT purpose FROM sessions WHERE token_hash = $1`, [sha256])).toEqual([{ purpose: 'dashboard' }]);
    // The cookie is a credential on /v1, acting on the current account.
    const account = await client.get('/v1/account');
    expect(account.status).toBe(200);
    expect(account.body.account.id).toBe(merchant.accountId);
  });

  it('on https the cookie is __Host- prefixed and Secure', async () => {
    const secure = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://rewards.example.test' } });
    try {
      const other = await seedMerchant(secure);
      const client = new DashboardClient(secure.baseUrl);
      await client.signIn(other.email, other.password);
      expect(client.setCookies[0]).toMatch(/^__Host-dashboard_session=\w{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
      expect((await client.get('/dashboard/api/session')).status).toBe(200);
    } finally {
      await secure.close();
    }
  });

  it('a wrong password and an unknown e-mail get the same answer', async () => {
    const client = new DashboardClient(t.baseUrl);
    const wrong = await client.post('/dashboard/api/session', { email: merchant.email, password: 'not the password at all' });
    const unknown = await client.post('/dashboard/api/session', { email: 'nobody@example.test', password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(client.setCookies).toEqual([]);
  });

  it('signing in issues a new session id: a cookie planted before is worth nothing after', async () => {
    const client = await signedIn(t, merchant);
    const planted = client.cookie!;
    await client.signIn(merchant.email, merchant.password);
    expect(client.cookie).not.toBe(planted);
    const attacker = new DashboardClient(t.baseUrl);
    attacker.cookie = planted;
    expect((await attacker.get('/dashboard/api/session')).status).toBe(401);
    expect((await client.get('/dashboard/api/session')).status).toBe(200);
  });

  it('signing out ends the session on the server: a copy of the cookie stops working', async () => {
    const client = await signedIn(t, merchant);
    const copy = new DashboardClient(t.baseUrl);
    copy.cookie = client.cookie;
    expect((await copy.get('/v1/account')).status).toBe(200);
    expect((await client.delete('/dashboard/api/session')).status).toBe(204);
    expect(client.setCookies.at(-1)).toMatch(/^dashboard_session=; Max-Age=0/);
    expect((await copy.get('/v1/account')).status).toBe(401);
    expect((await copy.get('/dashboard/api/session')).status).toBe(401);
  });

  describe('CSRF and Origin', () => {
    it('a change made with the cookie needs the X-CSRF-Token of the session: missing or wrong is 403', async () => {
      const client = await signedIn(t, merchant);
      const missing = await client.post('/dashboard/api/api-keys', { name: 'ci', scopes: ['read'] }, { noCsrf: true });
      expect(missing.status).toBe(403);
      expect(missing.body.error).toBe('forbidden');
      const wrong = await client.post('/dashboard/api/api-keys', { name: 'ci', scopes: ['read'] }, { headers: { 'x-csrf-token': 'x'.repeat(43) } });
      expect(wrong.status).toBe(403);
      // On /v1 too: a top-up made with the cookie and no token is refused, and nothing is created.
      const topup = await client.post('/v1/topups', { amountCents: 1000 }, { noCsrf: true });
      expect(topup.status).toBe(403);
      expect((await client.get('/v1/topups')).body.total).toBe(0);
      expect((await client.get('/dashboard/api/api-keys')).body.total).toBe(3);
      // Another session's token is wrong too.
      const other = await signedIn(t, merchant);
      const foreign = await client.post('/dashboard/api/api-keys', { name: 'ci', scopes: ['read'] }, { headers: { 'x-csrf-token': other.csrfToken! } });
      expect(foreign.status).toBe(403);
      expect((await client.post('/dashboard/api/api-keys', { name: 'ci', scopes: ['read'] })).status).toBe(201);
    });

    it('a change from another origin is 403, with the right token too', async () => {
      const client = await signedIn(t, merchant);
      const res = await client.post('/dashboard/api/session/account', { accountId: merchant.accountId }, { headers: { origin: 'https://evil.example' } });
      expect(res.status).toBe(403);
      const v1 = await client.post('/v1/topups', { amountCents: 1000 }, { headers: { origin: 'https://evil.example' } });
      expect(v1.status).toBe(403);
      const signIn = await new DashboardClient(t.baseUrl).post(
        '/dashboard/api/session',
        { email: merchant.email, password: merchant.password },
        { headers: { origin: 'https://evil.example' } },
      );
      expect(signIn.status).toBe(403);
      const own = await client.post('/dashboard/api/session/account', { accountId: merchant.accountId }, { headers: { origin: t.baseUrl } });
      expect(own.status).toBe(200);
    });
  });

  it('an API key or OAuth token on /dashboard/api is 401, whatever its scopes', async () => {
    const withKey = new DashboardClient(t.baseUrl);
    const key = await withKey.get('/dashboard/api/api-keys', { headers: { authorization: `Bearer ${merchant.key}` } });
    expect(key.status).toBe(401);
    expect((await withKey.get('/dashboard/api/session', { headers: { authorization: `Bearer ${merchant.key}` } })).status).toBe(401);
    const app = await registerApp(t, ['account:read', 'rewards:write']);
    const tokens = await connect(t, app, merchant, 'account:read rewards:write');
    const token = await withKey.get('/dashboard/api/members', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(token.status).toBe(401);
    // The OAuth pages signed the merchant in with the same session mechanism, ended by the decision.
    const [authorize] = await db.query(
      `SELECT count(*)::int AS ended FROM sessions WHERE purpose = 'oauth_authorize' AND user_id = $1 AND ended_at IS NOT NULL`,
      [merchant.userId],
    );
    expect(authorize.ended).toBeGreaterThan(0);
    // Even next to a valid session cookie, an Authorization header is not a dashboard credential.
    const client = await signedIn(t, merchant);
    expect((await client.get('/dashboard/api/api-keys', { headers: { authorization: `Bearer ${merchant.key}` } })).status).toBe(401);
    // And a session token is never accepted as a bearer credential.
    const bearer = await withKey.get('/dashboard/api/session', { headers: { authorization: `Bearer ${client.cookie!.split('=')[1]}` } });
    expect(bearer.status).toBe(401);
  });

  describe('roles', () => {
    it('a viewer reads through /v1 but cannot send a reward (403)', async () => {
      const viewer = await signedIn(t, await addMember(t, merchant.accountId, 'viewer'));
      expect((await viewer.get('/v1/rewards')).status).toBe(200);
      const send = await viewer.post('/v1/rewards', choiceReward(500));
      expect(send.status).toBe(403);
      expect(send.body.error).toBe('forbidden');
      expect((await viewer.get('/dashboard/api/api-keys')).status).toBe(403);
    });

    it('a developer sends rewards (source "dashboard") and manages keys, but cannot top up or invite (403)', async () => {
      await fund(t, merchant, 10_000);
      const developer = await signedIn(t, await addMember(t, merchant.accountId, 'developer'));
      const sent = await developer.post('/v1/rewards', choiceReward(500));
      expect(sent.status).toBe(201);
      expect(sent.body.reward.source).toBe('dashboard');
      expect((await developer.get('/dashboard/api/api-keys')).status).toBe(200);
      const topup = await developer.post('/v1/topups', { amountCents: 1000 });
      expect(topup.status).toBe(403);
      const invite = await developer.post('/dashboard/api/invitations', { email: 'colleague@example.test', role: 'viewer' });
      expect(invite.status).toBe(403);
      expect((await developer.get('/dashboard/api/members')).status).toBe(403);
    });

    it('an admin tops up and manages the team', async () => {
      const admin = await signedIn(t, await addMember(t, merchant.accountId, 'admin'));
      expect((await admin.post('/v1/topups', { amountCents: 1000 })).status).toBe(201);
      expect((await admin.get('/dashboard/api/members')).status).toBe(200);
    });
  });

  it('the session counts against its own rate limit, as a key does', async () => {
    const client = await signedIn(t, merchant);
    const res = await client.get('/v1/account');
    expect(res.headers.get('ratelimit-limit')).toBe('300');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(300);
  });

  describe('expiry', () => {
    /**
     * These tests move the clock in the database. The process caches a credential for up to 30 s, never
     * past the expiry it read, so with a real clock the cache ends in time; a clock moved behind its back
     * is not seen until then, as a revocation would not be without its announcement. Drop the cache as a
     * revocation does, and the next request reads the session again.
     */
    const forgetCachedCredentials = () => t.app.get(CredentialResolverRegistry).revoked();

    it('a session unused for 2 hours has ended', async () => {
      const client = await signedIn(t, merchant);
      await db.query(`UPDATE sessions SET last_seen_at = now() - interval '2 hours 1 minute' WHERE csrf_token = $1`, [client.csrfToken]);
      forgetCachedCredentials();
      expect((await client.get('/v1/account')).status).toBe(401);
      expect((await client.get('/dashboard/api/session')).status).toBe(401);
    });

    it('a session ends 12 hours after sign-in, however busy', async () => {
      const client = await signedIn(t, merchant);
      expect((await client.get('/v1/account')).status).toBe(200);
      // As if signed in 12 hours ago and used all along: the idle clock is fresh, the absolute one has run out.
      await db.query(
        `UPDATE sessions SET created_at = now() - interval '12 hours', expires_at = now() - interval '1 second' WHERE csrf_token = $1`,
        [client.csrfToken],
      );
      forgetCachedCredentials();
      expect((await client.get('/v1/account')).status).toBe(401);
    });

    it('one that is used just under 2 hours apart lives on', async () => {
      const client = await signedIn(t, merchant);
      await db.query(`UPDATE sessions SET last_seen_at = now() - interval '1 hour 59 minutes' WHERE csrf_token = $1`, [client.csrfToken]);
      expect((await client.get('/dashboard/api/session')).status).toBe(200);
    });
  });

  it('sessions dead for more than a day are purged; live ones are untouched', async () => {
    const live = await signedIn(t, merchant);
    const dead = await signedIn(t, merchant);
    await dead.delete('/dashboard/api/session');
    await db.query(`UPDATE sessions SET ended_at = now() - interval '25 hours' WHERE csrf_token = $1`, [dead.csrfToken]);
    expect(await t.app.get(SessionStore).purge()).toBeGreaterThanOrEqual(1);
    expect(await db.query(`SELECT 1 FROM sessions WHERE csrf_token = $1`, [dead.csrfToken])).toEqual([]);
    expect(await db.query(`SELECT 1 FROM sessions WHERE csrf_token = $1`, [live.csrfToken])).toHaveLength(1);
    expect((await live.get('/dashboard/api/session')).status).toBe(200);
  });

  it('switching account: 404 for an account the user is not a member of', async () => {
    const other = await seedMerchant(t);
    const client = await signedIn(t, merchant);
    const res = await client.post('/dashboard/api/session/account', { accountId: other.accountId });
    expect(res.status).toBe(404);
  });

  describe('brute force', () => {
    // An app of its own: its sign-in counters start from zero, whatever the other tests did.
    let fresh: TestApp;
    beforeAll(async () => {
      fresh = await startTestApp({ env: {} });
    });
    afterAll(() => fresh.close());

    it('after 10 failures for one e-mail in 15 minutes, even the right password gets 429', async () => {
      const victim = await addMember(fresh, (await seedMerchant(fresh)).accountId, 'viewer');
      const client = new DashboardClient(fresh.baseUrl);
      for (let i = 0; i < 10; i++) {
        expect((await client.post('/dashboard/api/session', { email: victim.email, password: `wrong guess ${i}` })).status).toBe(401);
      }
      const blocked = await client.post('/dashboard/api/session', { email: victim.email, password: victim.password });
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('after 30 attempts a minute from one address, the next is 429 whatever the e-mail', async () => {
      const client = new DashboardClient(fresh.baseUrl);
      // Attempts of the test before count too (same address, same minute): a 429 must come by the 31st.
      const statuses: number[] = [];
      for (let i = 0; i < 31 && statuses.at(-1) !== 429; i++) {
        statuses.push((await client.post('/dashboard/api/session', { email: `guess-${i}@example.test`, password: 'some password' })).status);
      }
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    });
  });
});
