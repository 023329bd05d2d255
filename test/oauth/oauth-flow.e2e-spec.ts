import * as oauth from 'oauth4webapi';
import { DataSource } from 'typeorm';
import { ConnectedAppsService } from '@app/oauth';
import {
  authorizationUrl,
  authorizeInBrowser,
  connect,
  exchange,
  insecure,
  refresh,
  registerApp,
  RegisteredApp,
} from '../support/oauth';
import { seedMerchant, SeededMerchant, startTestApp, TestApp } from '../support/test-app';

/** The full authorization-code flow with PKCE, driven by oauth4webapi against the real server over HTTP. */
describe('OAuth: connecting a marketplace app', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let app: RegisteredApp;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t);
    app = await registerApp(t, ['account:read', 'wallet:read', 'rewards:read', 'rewards:write']);
  });
  afterAll(() => t.close());

  it('publishes RFC 8414 metadata that a strict client accepts', async () => {
    const res = await t.api.get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: t.config.publicBaseUrl,
      authorization_endpoint: `${t.config.authUrl}/oauth/authorize`,
      token_endpoint: `${t.baseUrl}/oauth/token`,
      revocation_endpoint: `${t.baseUrl}/oauth/revoke`,
      scopes_supported: ['account:read', 'catalog:read', 'rewards:read', 'rewards:write', 'wallet:read', 'webhooks:read', 'webhooks:write'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    });
    expect(app.as.issuer).toBe(t.config.publicBaseUrl);
  });

  it('sign in, approve, exchange: the token calls /v1 with exactly the granted scopes', async () => {
    const attempt = await authorizationUrl(app, 'account:read rewards:read');
    const callback = await authorizeInBrowser(t, attempt, merchant);
    expect(callback.origin + callback.pathname).toBe(app.redirectUri);
    expect(callback.searchParams.get('state')).toBe(attempt.state);
    expect(callback.searchParams.get('iss')).toBe(t.config.publicBaseUrl);
    // Only the code travels through the browser, never a token.
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state']);

    const tokens = await exchange(app, callback, attempt);
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^oat_[A-Za-z0-9]{43}$/),
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^ort_[A-Za-z0-9]{43}$/),
      scope: 'account:read rewards:read',
    });

    const account = await t.api.as(tokens.access_token).get('/v1/account');
    expect(account.status).toBe(200);
    expect(account.body.account.id).toBe(merchant.accountId);
    expect(account.headers.get('ratelimit-limit')).toBe('300');
    // wallet:read is a scope the app may ask for, but did not ask for here.
    const wallet = await t.api.as(tokens.access_token).get('/v1/wallet');
    expect(wallet.status).toBe(403);
    expect(wallet.body.error).toBe('forbidden');
  });

  it('a token never funds the wallet or changes branding, whatever it was granted (403)', async () => {
    const tokens = await connect(t, app, merchant, 'account:read wallet:read rewards:read rewards:write');
    const topup = await t.api.as(tokens.access_token).post('/v1/topups', { amountCents: 1000 });
    expect(topup.status).toBe(403);
    const branding = await t.api.as(tokens.access_token).patch('/v1/account/branding', { senderName: 'Hijacked' });
    expect(branding.status).toBe(403);
    expect((await t.api.as(merchant.key).get('/v1/account')).body.account.senderName).toBeNull();
    // Nor the low-balance alerts, which it may read with account:read.
    expect((await t.api.as(tokens.access_token).get('/v1/account/alert-settings')).status).toBe(200);
    const alerts = await t.api.as(tokens.access_token).put('/v1/account/alert-settings', { alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 100 }] } });
    expect(alerts.status).toBe(403);
    expect((await t.api.as(merchant.key).get('/v1/account/alert-settings')).body.alertSettings.lowBalance).toEqual([]);
  });

  it('refresh rotates both tokens; the old refresh token is consumed', async () => {
    const first = await connect(t, app, merchant, 'account:read wallet:read');
    const second = await refresh(app, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.scope).toBe('account:read wallet:read');
    expect(second.expires_in).toBe(3600);
    expect((await t.api.as(second.access_token).get('/v1/wallet')).status).toBe(200);
    const third = await refresh(app, second.refresh_token!);
    expect((await t.api.as(third.access_token).get('/v1/account')).status).toBe(200);
  });

  it('a refresh may narrow the scope, never widen it', async () => {
    const tokens = await connect(t, app, merchant, 'account:read wallet:read');
    const narrowed = await oauth.processRefreshTokenResponse(
      app.as,
      app.client,
      await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, {
        ...insecure,
        additionalParameters: { scope: 'account:read' },
      }),
    );
    expect(narrowed.scope).toBe('account:read');
    expect((await t.api.as(narrowed.access_token).get('/v1/wallet')).status).toBe(403);
    const widened = oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, narrowed.refresh_token!, {
      ...insecure,
      additionalParameters: { scope: 'account:read rewards:write' },
    });
    await expect(widened.then((r) => oauth.processRefreshTokenResponse(app.as, app.client, r))).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('deny sends the browser back with error=access_denied and the original state', async () => {
    const attempt = await authorizationUrl(app, 'account:read');
    const callback = await authorizeInBrowser(t, attempt, merchant, 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(attempt.state);
    expect(callback.searchParams.get('code')).toBeNull();
    expect(() => oauth.validateAuthResponse(app.as, app.client, callback, attempt.state)).toThrow(oauth.AuthorizationResponseError);
  });

  it('revocation (RFC 7009) ends the grant: access and refresh token stop working; unknown tokens answer 200', async () => {
    const tokens = await connect(t, app, merchant, 'account:read');
    const revoke = (token: string) =>
      oauth.revocationRequest(app.as, app.client, app.auth, token, insecure).then(oauth.processRevocationResponse);
    await expect(revoke(tokens.refresh_token!)).resolves.toBeUndefined();
    expect((await t.api.as(tokens.access_token).get('/v1/account')).status).toBe(401);
    await expect(refresh(app, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(revoke('ort_unknownTokenxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')).resolves.toBeUndefined();
    await expect(revoke(tokens.refresh_token!)).resolves.toBeUndefined();
  });

  it("a client cannot revoke another client's token", async () => {
    const other = await registerApp(t, ['account:read']);
    const tokens = await connect(t, app, merchant, 'account:read');
    await oauth.revocationRequest(other.as, other.client, other.auth, tokens.refresh_token!, insecure).then(oauth.processRevocationResponse);
    expect((await t.api.as(tokens.access_token).get('/v1/account')).status).toBe(200);
  });

  it('connected apps: the account sees the connection and revoking it ends every token', async () => {
    const owner = await seedMerchant(t);
    const tokens = await connect(t, app, owner, 'account:read');
    const again = await connect(t, app, owner, 'wallet:read');
    const connectedApps = t.app.get(ConnectedAppsService);
    const list = await connectedApps.list(owner.accountId);
    expect(list).toEqual([
      {
        id: expect.stringMatching(/^conn_/),
        clientId: app.clientId,
        appName: expect.stringMatching(/^Test App/),
        scopes: ['account:read', 'wallet:read'],
        createdAt: expect.any(Date),
      },
    ]);
    expect(await connectedApps.list(merchant.accountId)).not.toContainEqual(expect.objectContaining({ id: list[0].id }));
    await expect(connectedApps.revoke(merchant.accountId, list[0].id)).rejects.toMatchObject({ status: 404 });

    await connectedApps.revoke(owner.accountId, list[0].id);
    expect(await connectedApps.list(owner.accountId)).toEqual([]);
    for (const token of [tokens.access_token, again.access_token]) {
      expect((await t.api.as(token).get('/v1/account')).status).toBe(401);
    }
    await expect(refresh(app, again.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Connecting again starts a new connection.
    const fresh = await connect(t, app, owner, 'account:read');
    expect((await t.api.as(fresh.access_token).get('/v1/account')).status).toBe(200);
  });

  it('codes and tokens are stored only as hashes', async () => {
    const attempt = await authorizationUrl(app, 'account:read');
    const callback = await authorizeInBrowser(t, attempt, merchant);
    const code = callback.searchParams.get('code')!;
    const tokens = await exchange(app, callback, attempt);
    const db = t.app.get(DataSource);
    const dump = JSON.stringify([
      await db.query('SELECT * FROM oauth_authorization_codes'),
      await db.query('SELECT * FROM oauth_tokens'),
      await db.query('SELECT * FROM oauth_clients'),
      await db.query('SELECT * FROM oauth_grants'),
    ]);
    for (const secret of [code, tokens.access_token, tokens.refresh_token!, app.clientSecret]) {
      expect(dump).not.toContain(secret.slice(4, 24));
    }
  });
});
