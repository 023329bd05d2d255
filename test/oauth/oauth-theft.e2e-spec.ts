import * as oauth from 'oauth4webapi';
import { DataSource } from 'typeorm';
import { CredentialResolverRegistry } from '@app/auth';
import { ACCESS_TOKEN_TTL_SECONDS, AUTHORIZATION_CODE_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from '@app/oauth';
import {
  authorizationUrl,
  authorizeInBrowser,
  connect,
  exchange,
  insecure,
  refresh,
  registerApp,
  RegisteredApp,
  tokenRequest,
} from '../support/oauth';
import { seedMerchant, SeededMerchant, startTestApp, TestApp } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';

/** Replay, reuse and theft at the token endpoint: each answers per RFC 6749 and fails safe. */
describe('OAuth: code and token theft', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let app: RegisteredApp;
  const clock = new TestClock();

  beforeAll(async () => {
    t = await startTestApp({ overrides: [clockOverride(clock)] });
    merchant = await seedMerchant(t);
    app = await registerApp(t, ['account:read', 'wallet:read']);
  });
  afterEach(() => clock.reset());
  afterAll(() => t.close());

  /** A code approved in the browser, not yet exchanged. */
  async function freshCode(scope = 'account:read') {
    const attempt = await authorizationUrl(app, scope);
    const callback = await authorizeInBrowser(t, attempt, merchant);
    return { attempt, callback, code: callback.searchParams.get('code')! };
  }

  const codeGrant = (code: string, verifier: string, redirectUri = app.redirectUri) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  const basic = (which: RegisteredApp = app) => ({ id: which.clientId, secret: which.clientSecret });
  const accountStatus = async (token: string) => (await t.api.as(token).get('/v1/account')).status;

  it('code reuse: the second exchange fails and revokes every token the first one issued', async () => {
    const { attempt, callback, code } = await freshCode();
    const tokens = await exchange(app, callback, attempt);
    expect(await accountStatus(tokens.access_token)).toBe(200);

    const replay = await tokenRequest(t, codeGrant(code, attempt.verifier), basic());
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('already been used') });
    expect(replay.headers.get('cache-control')).toBe('no-store');

    expect(await accountStatus(tokens.access_token)).toBe(401);
    await expect(refresh(app, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('two concurrent exchanges of one code: one wins, then loses its tokens to the replay', async () => {
    const { attempt, code } = await freshCode();
    const results = await Promise.all([1, 2].map(() => tokenRequest(t, codeGrant(code, attempt.verifier), basic())));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.status === 200)!;
    expect(await accountStatus(winner.body.access_token)).toBe(401);
  });

  it('refresh-token reuse revokes the whole family, including the tokens rotated in since', async () => {
    const first = await connect(t, app, merchant, 'account:read');
    const second = await refresh(app, first.refresh_token!);
    expect(await accountStatus(second.access_token)).toBe(200);

    await expect(refresh(app, first.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('already used'),
    });
    expect(await accountStatus(second.access_token)).toBe(401);
    expect(await accountStatus(first.access_token)).toBe(401);
    await expect(refresh(app, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('concurrent refreshes with one token: exactly one rotation, and the family ends', async () => {
    const tokens = await connect(t, app, merchant, 'account:read');
    const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! };
    const results = await Promise.all([1, 2].map(() => tokenRequest(t, form, basic())));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const rotated = results.find((r) => r.status === 200)!;
    expect(await accountStatus(rotated.body.access_token)).toBe(401);
  });

  it('a wrong code_verifier fails, and the code is used up', async () => {
    const { attempt, callback, code } = await freshCode();
    const wrongVerifier = oauth.generateRandomCodeVerifier();
    await expect(exchange(app, callback, { ...attempt, verifier: wrongVerifier })).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('code_verifier'),
    });
    const retry = await tokenRequest(t, codeGrant(code, attempt.verifier), basic());
    expect(retry.status).toBe(400);
    expect(retry.body.error).toBe('invalid_grant');
  });

  it('a redirect_uri other than the authorization request\'s fails', async () => {
    const { attempt, code } = await freshCode();
    const res = await tokenRequest(t, codeGrant(code, attempt.verifier, `${app.redirectUri}/other`), basic());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('redirect_uri') });
  });

  it('another client cannot exchange the code (and cannot burn it for the right one)', async () => {
    const thief = await registerApp(t, ['account:read', 'wallet:read']);
    const { attempt, callback, code } = await freshCode();
    const stolen = await tokenRequest(t, codeGrant(code, attempt.verifier, app.redirectUri), basic(thief));
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    const tokens = await exchange(app, callback, attempt);
    expect(await accountStatus(tokens.access_token)).toBe(200);
  });

  it("another client cannot use the app's refresh token", async () => {
    const thief = await registerApp(t, ['account:read']);
    const tokens = await connect(t, app, merchant, 'account:read');
    await expect(refresh(thief, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The app's own refresh still works: the thief's attempt consumed nothing.
    await expect(refresh(app, tokens.refresh_token!)).resolves.toMatchObject({ token_type: 'bearer' });
  });

  it('bad client authentication: 401 invalid_client with a Basic challenge', async () => {
    const { attempt, code } = await freshCode();
    const cases = [
      await tokenRequest(t, codeGrant(code, attempt.verifier), { id: app.clientId, secret: 'ocs_wrong' }),
      await tokenRequest(t, codeGrant(code, attempt.verifier), { id: 'oac_unknown', secret: app.clientSecret }),
      await tokenRequest(t, codeGrant(code, attempt.verifier)),
      // client_secret_post is not a method we take.
      await tokenRequest(t, { ...codeGrant(code, attempt.verifier), client_id: app.clientId, client_secret: app.clientSecret }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth"/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // None of them used the code up.
    expect((await tokenRequest(t, codeGrant(code, attempt.verifier), basic())).status).toBe(200);
  });

  it('an expired code fails with invalid_grant', async () => {
    const { attempt, callback, code } = await freshCode();
    await t.app
      .get(DataSource)
      .query(`UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second' WHERE code_hash = encode(sha256($1::bytea), 'hex')`, [code]);
    await expect(exchange(app, callback, attempt)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('expired'),
    });
  });

  it('an expired refresh token or access token stops working', async () => {
    const tokens = await connect(t, app, merchant, 'account:read');
    await t.app
      .get(DataSource)
      .query(
        `UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash IN (encode(sha256($1::bytea), 'hex'), encode(sha256($2::bytea), 'hex'))`,
        [tokens.access_token, tokens.refresh_token],
      );
    expect(await accountStatus(tokens.access_token)).toBe(401);
    await expect(refresh(app, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it("codes and tokens expire by the service's clock: a code after 5 minutes, an access token after an hour, a refresh token after 30 days", async () => {
    // Three days ahead of the wall clock and the database's: neither reaches an expiry set by this one.
    clock.freeze(new Date(Date.now() + 3 * 86_400_000));
    // A code is still good a second before its five minutes are up, by this clock…
    const early = await freshCode();
    clock.advance(AUTHORIZATION_CODE_TTL_SECONDS * 1000 - 1000);
    expect(await exchange(app, early.callback, early.attempt)).toMatchObject({ token_type: 'bearer' });
    // …and refused once they are.
    const { attempt, callback } = await freshCode();
    clock.advance(AUTHORIZATION_CODE_TTL_SECONDS * 1000);
    await expect(exchange(app, callback, attempt)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: 'The authorization code has expired.',
    });

    const tokens = await connect(t, app, merchant, 'account:read');
    const spare = await connect(t, app, merchant, 'account:read');
    clock.advance(ACCESS_TOKEN_TTL_SECONDS * 1000 - 1000);
    expect(await accountStatus(tokens.access_token)).toBe(200);
    clock.advance(1000);
    // The process caches a credential for up to 30 s of the wall clock, never past the expiry it read
    // (by the wall clock too): drop it as a revocation does, and the token is read again.
    t.app.get(CredentialResolverRegistry).revoked();
    expect(await accountStatus(tokens.access_token)).toBe(401);

    // A refresh token works a second before its 30 days are up, and not once they are.
    clock.advance((REFRESH_TOKEN_TTL_SECONDS - ACCESS_TOKEN_TTL_SECONDS) * 1000 - 1000);
    expect(await refresh(app, spare.refresh_token!)).toMatchObject({ token_type: 'bearer' });
    clock.advance(1000);
    await expect(refresh(app, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: 'The refresh token has expired.',
    });
  });

  it('tokens are not interchangeable: a refresh token is no bearer, an access token no refresh token', async () => {
    const tokens = await connect(t, app, merchant, 'account:read');
    expect(await accountStatus(tokens.refresh_token!)).toBe(401);
    await expect(refresh(app, tokens.access_token)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('malformed token requests answer RFC 6749 errors', async () => {
    const unsupported = await tokenRequest(t, { grant_type: 'password', username: 'a', password: 'b' }, basic());
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('unsupported_grant_type');

    const missing = await tokenRequest(t, {}, basic());
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'grant_type is required.' });

    const noVerifier = await tokenRequest(t, { grant_type: 'authorization_code', code: 'ocd_x', redirect_uri: app.redirectUri }, basic());
    expect(noVerifier.body.error).toBe('invalid_request');

    const json = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });

    const unknownScope = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'ort_x', scope: 'wallet:write' }, basic());
    expect(unknownScope.body.error).toBe('invalid_scope');
  });

  it('a NUL (U+0000) in the client credentials is 401 invalid_client; in a form field, 400 invalid_request', async () => {
    const { attempt, code } = await freshCode();
    for (const credentials of [
      { id: `${app.clientId}\u0000`, secret: app.clientSecret },
      { id: app.clientId, secret: `${app.clientSecret}\u0000` },
    ]) {
      const res = await tokenRequest(t, codeGrant(code, attempt.verifier), credentials);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth"/);
    }
    for (const field of ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'client_id', 'x\u0000']) {
      const form = { ...codeGrant(code, attempt.verifier), [field]: 'a\u0000b' };
      const res = await tokenRequest(t, form, basic());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('NUL') });
    }
    const revoke = await fetch(`${t.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
      body: 'token=ort_%00',
    });
    expect(revoke.status).toBe(400);
    expect(await revoke.json()).toMatchObject({ error: 'invalid_request' });
    // None of them used the code up.
    expect((await tokenRequest(t, codeGrant(code, attempt.verifier), basic())).status).toBe(200);
  });

  it('a body over 100 KB is 413 in RFC 6749 shape, at the token and the revoke endpoint', async () => {
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      const res = await fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(101 * 1024), token: 'x' }).toString(),
      });
      expect(res.status).toBe(413);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The request body is larger than 100 KB.' });
    }
    // Just under the limit is read, and answered as any other request.
    const under = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(99 * 1024) }, basic());
    expect(under.status).toBe(400);
    expect(under.body.error).toBe('invalid_grant');
  });

  it('a strict client sees the revoke endpoint refuse a missing token and bad credentials', async () => {
    const res = await fetch(`${t.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
      body: '',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
    const wrong = oauth.ClientSecretBasic('ocs_wrong');
    const revoked = oauth.revocationRequest(app.as, app.client, wrong, 'ort_x', insecure).then(oauth.processRevocationResponse);
    await expect(revoked).rejects.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  });
});
