import { OAuthClientService, SIGN_IN_FAILURES_PER_EMAIL } from '@app/oauth';
import { authorizationUrl, Browser, hiddenFields, registerApp, RegisteredApp, signIn } from '../support/oauth';
import { seedMerchant, SeededMerchant, startTestApp, TestApp } from '../support/test-app';

/** The browser side: request validation, the forms, the session cookie, CSRF and sign-in limits. */
describe('OAuth: the authorize pages', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let app: RegisteredApp;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t);
    app = await registerApp(t, ['account:read', 'rewards:write']);
  });
  afterAll(() => t.close());

  describe('an untrusted client or redirect URI gets an error page and never a redirect', () => {
    it.each([
      ['an unknown client_id', { client_id: 'oac_unknown' }],
      ['no client_id', { client_id: '' }],
      ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/callback' }],
      ['a redirect_uri differing by a trailing slash', { redirect_uri: 'REGISTERED/' }],
      ['a redirect_uri with an extra query', { redirect_uri: 'REGISTERED?next=https://evil.example' }],
    ])('%s', async (_, override) => {
      const { url } = await authorizationUrl(app, 'account:read');
      for (const [name, value] of Object.entries(override)) url.searchParams.set(name, value.replace('REGISTERED', app.redirectUri));
      const res = await new Browser().get(url.toString());
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('not valid');
    });
  });

  describe('other problems go back to the app as RFC 6749 errors with the state', () => {
    it.each([
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
      ['no PKCE method', { code_challenge_method: '' }, 'invalid_request'],
      ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
      ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
      ['a scope the client is not registered for', { scope: 'account:read wallet:read' }, 'invalid_scope'],
      ['a first-party scope', { scope: 'wallet:write' }, 'invalid_scope'],
      ['no scope', { scope: '' }, 'invalid_scope'],
    ])('%s', async (_, override, error) => {
      const { url, state } = await authorizationUrl(app, 'account:read', override);
      const res = await new Browser().get(url.toString());
      expect(res.status).toBe(303);
      const location = new URL(res.location!);
      expect(location.origin + location.pathname).toBe(app.redirectUri);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe(state);
      expect(location.searchParams.get('iss')).toBe(t.config.publicBaseUrl);
      expect(location.searchParams.get('code')).toBeNull();
    });

    it('a missing state is invalid_request', async () => {
      const { url } = await authorizationUrl(app, 'account:read');
      url.searchParams.delete('state');
      const res = await new Browser().get(url.toString());
      expect(new URL(res.location!).searchParams.get('error')).toBe('invalid_request');
    });

    it('a repeated parameter is invalid_request', async () => {
      const { url } = await authorizationUrl(app, 'account:read');
      url.searchParams.append('scope', 'rewards:write');
      const res = await new Browser().get(url.toString());
      expect(new URL(res.location!).searchParams.get('error')).toBe('invalid_request');
    });
  });

  it('the sign-in page: labelled inputs, CSRF token, the session cookie, strict headers', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const res = await new Browser().get(url.toString());
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<label for="email">[^<]+<\/label>\s*<input id="email" name="email"/);
    expect(res.text).toMatch(/<label for="password">[^<]+<\/label>\s*<input id="password" name="password" type="password"/);
    expect(hiddenFields(res.text).csrf_token).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(res.text).not.toMatch(/<script|src="http|href="http/);
    expect(res.setCookies).toHaveLength(1);
    expect(res.setCookies[0]).toMatch(/^oauth_session=[A-Za-z0-9]{43}; Max-Age=1800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`form-action 'self' ${new URL(app.redirectUri).origin}`);
  });

  it('on https the cookie is Secure and __Host- prefixed', async () => {
    const secure = await startTestApp({ env: { AUTH_URL: 'https://auth.rewards.test' } });
    try {
      const secureApp = await registerApp(secure, ['account:read']);
      const { url } = await authorizationUrl(secureApp, 'account:read');
      const local = new URL(url.pathname + url.search, secure.baseUrl);
      const res = await new Browser().get(local.toString());
      expect(res.setCookies[0]).toMatch(/^__Host-oauth_session=\w+; Max-Age=1800; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await secure.close();
    }
  });

  it('the consent page names the app, the account and each scope in plain words', async () => {
    const { url } = await authorizationUrl(app, 'account:read rewards:write');
    const consent = await signIn(new Browser(), t, url, merchant);
    expect(consent.text).toContain('Connect Test App');
    expect(consent.text).toMatch(/<input type="radio" name="account_id" value="acct_\w+" checked required> Merchant/);
    expect(consent.text).toContain('See your account profile');
    expect(consent.text).toContain('Send, resend and cancel rewards');
    expect(consent.text).not.toContain('See your wallet balance and transactions');
    expect(consent.text).toContain('name="decision" value="approve"');
    expect(consent.text).toContain('name="decision" value="deny"');
    expect(consent.text).toContain(`Signed in as ${merchant.email.toLowerCase()}`);
  });

  it('escapes what it shows: an app name with markup is text', async () => {
    const { clientId } = await t.app
      .get(OAuthClientService)
      .create({ name: '<script>alert(1)</script>', redirectUris: [app.redirectUri], scopes: ['account:read'] });
    const { url } = await authorizationUrl({ ...app, clientId }, 'account:read');
    const res = await new Browser().get(url.toString());
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.text).not.toContain('<script>');
  });

  it('forms without the session CSRF token are refused', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const page = await browser.get(url.toString());
    const fields = hiddenFields(page.text);
    const noToken = await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...fields, csrf_token: '', email: merchant.email, password: merchant.password });
    expect(noToken.status).toBe(403);
    // A token from someone else's session (login CSRF) does not work either.
    const otherPage = await new Browser().get(url.toString());
    const foreign = await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, {
      ...fields,
      csrf_token: hiddenFields(otherPage.text).csrf_token,
      email: merchant.email,
      password: merchant.password,
    });
    expect(foreign.status).toBe(403);
    // Without a cookie there is no session at all.
    const cookieless = await new Browser().post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...fields, email: merchant.email, password: merchant.password });
    expect(cookieless.status).toBe(403);
  });

  it('the decision needs a signed-in session; it ends the session, so it cannot be replayed', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const anonymous = new Browser();
    const page = await anonymous.get(url.toString());
    const early = await anonymous.post(`${t.baseUrl}/oauth/authorize/decision`, { ...hiddenFields(page.text), account_id: merchant.accountId, decision: 'approve' });
    expect(early.status).toBe(403);

    const browser = new Browser();
    const consent = await signIn(browser, t, url, merchant);
    const form = { ...hiddenFields(consent.text), account_id: merchant.accountId, decision: 'approve' };
    const first = await browser.post(`${t.baseUrl}/oauth/authorize/decision`, form);
    expect(first.status).toBe(303);
    expect(new URL(first.location!).searchParams.get('code')).toMatch(/^ocd_/);
    expect(first.setCookies[0]).toMatch(/^oauth_session=; Max-Age=0/);
    const replay = await browser.post(`${t.baseUrl}/oauth/authorize/decision`, form);
    expect(replay.status).toBe(403);
  });

  it('two simultaneous approvals from one session yield one code', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const consent = await signIn(browser, t, url, merchant);
    const form = { ...hiddenFields(consent.text), account_id: merchant.accountId, decision: 'approve' };
    const results = await Promise.all([1, 2, 3].map(() => browser.post(`${t.baseUrl}/oauth/authorize/decision`, form)));
    expect(results.map((r) => r.status).sort()).toEqual([303, 403, 403]);
  });

  it("approving for an account the user is not a member of is refused", async () => {
    const stranger = await seedMerchant(t);
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const consent = await signIn(browser, t, url, merchant);
    const res = await browser.post(`${t.baseUrl}/oauth/authorize/decision`, {
      ...hiddenFields(consent.text),
      account_id: stranger.accountId,
      decision: 'approve',
    });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });

  it('tampered hidden fields are validated again on POST', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const consent = await signIn(browser, t, url, merchant);
    const res = await browser.post(`${t.baseUrl}/oauth/authorize/decision`, {
      ...hiddenFields(consent.text),
      redirect_uri: 'https://evil.example/callback',
      account_id: merchant.accountId,
      decision: 'approve',
    });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });

  it('a NUL (U+0000) in a posted field is a 400 error page, never a 500', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const page = await browser.get(url.toString());
    for (const [path, field] of [
      ['sign-in', 'email'],
      ['sign-in', 'client_id'],
      ['two-factor', 'totp_code'],
      ['decision', 'account_id'],
    ]) {
      const form = { ...hiddenFields(page.text), email: merchant.email, password: merchant.password, [field]: 'a\u0000b' };
      const res = await browser.post(`${t.baseUrl}/oauth/authorize/${path}`, form);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('This form cannot be read');
      expect(res.location).toBeNull();
    }
  });

  it('a wrong password shows the form again, without saying which field was wrong', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const page = await browser.get(url.toString());
    for (const email of [merchant.email, 'nobody@example.test']) {
      const res = await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...hiddenFields(page.text), email, password: 'not the password' });
      expect(res.status).toBe(200);
      expect(res.text).toContain('The e-mail or password is not right.');
      expect(res.setCookies).toEqual([]);
    }
  });

  it(`failed sign-ins are limited per e-mail (${SIGN_IN_FAILURES_PER_EMAIL} in 15 minutes): then 429, even with the right password`, async () => {
    const victim = await seedMerchant(t);
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const fields = hiddenFields((await browser.get(url.toString())).text);
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL; i++) {
      const res = await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...fields, email: victim.email, password: `guess ${i}` });
      expect(res.status).toBe(200);
    }
    const blocked = await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...fields, email: victim.email, password: victim.password });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another merchant signing in from the same address is not affected.
    await signIn(new Browser(), t, url, merchant);
  });
});
