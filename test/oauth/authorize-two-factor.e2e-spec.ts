import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { SIGN_IN_FAILURES_PER_EMAIL } from '@app/oauth';
import { DashboardClient } from '../support/dashboard-client';
import { addMember, signedIn } from '../support/dashboard';
import { authorizationUrl, Browser, exchange, hiddenFields, registerApp, RegisteredApp } from '../support/oauth';
import { seedMerchant, SeededMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * Two-factor sign-in on the authorize pages: a user who has it gives a current code after the
 * password, before account choice and consent, as at the dashboard's sign-in.
 */
describe('OAuth: the authorize pages ask a two-factor user for a code', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let app: RegisteredApp;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t);
    app = await registerApp(t, ['account:read']);
  });
  afterAll(() => t.close());

  /**
   * An admin of the merchant with two-factor sign-in on, and codes of the steps around the moment it
   * was turned on. Confirmed with step 0; step 1 stays good whether or not the clock crosses into the
   * next step meanwhile (a code of the step before or after the current one is accepted), so no test
   * waits for a step boundary.
   */
  async function twoFactorAdmin() {
    const person = await addMember(t, merchant.accountId, 'admin');
    const dashboard = await signedIn(t, person);
    const { secret } = (await dashboard.post('/dashboard/api/me/totp')).body as { secret: string };
    const epoch = Math.floor(Date.now() / 1000);
    const codeAt = (step: number) => generate({ secret, epoch: epoch + step * 30 });
    expect((await dashboard.post('/dashboard/api/me/totp/confirm', { code: await codeAt(0) })).status).toBe(204);
    const valid = new Set(await Promise.all([-1, 0, 1, 2].map(codeAt)));
    const wrongCode = ['000000', '111111', '222222', '333333', '444444'].find((code) => !valid.has(code))!;
    return { person, dashboard, next: await codeAt(1), wrongCode };
  }

  /** The sign-in page, then the password: returns what the browser sees next. */
  async function withPassword(browser: Browser, url: URL, person: { email: string; password: string }) {
    const page = await browser.get(url.toString());
    const res = await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...hiddenFields(page.text), email: person.email, password: person.password });
    expect(res.status).toBe(303);
    return browser.get(new URL(res.location!, t.baseUrl).toString());
  }

  const submitCode = (browser: Browser, page: string, code: string) =>
    browser.post(`${t.baseUrl}/oauth/authorize/two-factor`, { ...hiddenFields(page), totp_code: code });

  it('password alone no longer reaches consent; a wrong code is refused; the right one leads to consent and a token that works', async () => {
    const { person, next, wrongCode } = await twoFactorAdmin();
    const attempt = await authorizationUrl(app, 'account:read');
    const browser = new Browser();

    const codePage = await withPassword(browser, attempt.url, person);
    expect(codePage.status).toBe(200);
    expect(codePage.text).toContain('Enter your two-factor code');
    expect(codePage.text).toMatch(/<label for="totp_code">Two-factor code<\/label>\s*<input id="totp_code" name="totp_code" type="text" inputmode="numeric" autocomplete="one-time-code"/);
    expect(codePage.text).not.toContain('name="decision"');
    expect(codePage.text).not.toContain('name="account_id"');
    expect(codePage.headers.get('cache-control')).toBe('no-store');

    // The decision cannot be reached from here, with this page's token or without it.
    const skipped = await browser.post(`${t.baseUrl}/oauth/authorize/decision`, {
      ...hiddenFields(codePage.text),
      account_id: merchant.accountId,
      decision: 'approve',
    });
    expect(skipped.status).toBe(403);
    expect(skipped.location).toBeNull();
    // Coming back to the flow shows the code form again, not consent.
    expect((await browser.get(attempt.url.toString())).text).toContain('Enter your two-factor code');

    const wrong = await submitCode(browser, codePage.text, wrongCode);
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('The code is not right');
    expect(wrong.text).not.toContain('name="decision"');

    const right = await submitCode(browser, wrong.text, next);
    expect(right.status).toBe(303);
    const consent = await browser.get(new URL(right.location!, t.baseUrl).toString());
    expect(consent.text).toContain(`Signed in as ${person.email}`);
    const decided = await browser.post(`${t.baseUrl}/oauth/authorize/decision`, {
      ...hiddenFields(consent.text),
      account_id: merchant.accountId,
      decision: 'approve',
    });
    expect(decided.status).toBe(303);
    const tokens = await exchange(app, new URL(decided.location!), attempt);
    const account = await t.api.as(tokens.access_token).get('/v1/account');
    expect(account.status).toBe(200);
    expect(account.body.account.id).toBe(merchant.accountId);
  });

  it('wrong codes count as failed sign-ins of the e-mail: past the limit even the right code is refused (429)', async () => {
    const { person, next, wrongCode } = await twoFactorAdmin();
    const { url } = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    let page = (await withPassword(browser, url, person)).text;
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL; i++) {
      const res = await submitCode(browser, page, wrongCode);
      expect(res.status).toBe(200);
      page = res.text;
    }
    const blocked = await submitCode(browser, page, next);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The password step is refused for that e-mail as well, as at the dashboard.
    const dashboard = await new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: person.email, password: person.password, totpCode: next });
    expect(dashboard.status).toBe(429);
  });

  it('the code step is bound to the password step on the server: single use, five minutes, never from another session', async () => {
    const { person, next } = await twoFactorAdmin();
    const { url } = await authorizationUrl(app, 'account:read');

    // A browser that never gave the password cannot give a code, whatever it posts.
    const stranger = new Browser();
    const signInPage = await stranger.get(url.toString());
    expect((await submitCode(stranger, signInPage.text, next)).status).toBe(403);

    // The wait for the code lives five minutes; past them the code step is refused, even with a right code.
    const late = new Browser();
    const latePage = await withPassword(late, url, person);
    const db = t.app.get(DataSource);
    const [pending] = await db.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS seconds FROM sessions WHERE purpose = 'oauth_two_factor' AND user_id = $1 AND ended_at IS NULL`,
      [person.userId],
    );
    expect(pending.seconds).toBe(300);
    await db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE purpose = 'oauth_two_factor' AND user_id = $1`, [person.userId]);
    expect((await submitCode(late, latePage.text, next)).status).toBe(403);

    // Accepted once: the same two-factor session (a copied cookie, a doubled POST) gets nothing after.
    const browser = new Browser();
    const codePage = await withPassword(browser, url, person);
    const copy = new Browser();
    for (const [name, value] of browser.cookies) copy.cookies.set(name, value);
    expect((await submitCode(browser, codePage.text, next)).status).toBe(303);
    expect((await submitCode(copy, codePage.text, next)).status).toBe(403);
    // And the code itself is used up: another sign-in cannot give it again.
    const again = new Browser();
    const replayed = await submitCode(again, (await withPassword(again, url, person)).text, next);
    expect(replayed.status).toBe(200);
    expect(replayed.text).toContain('The code is not right');
  });

  it("the account's audit log shows the page's failed and successful sign-ins, and the app's connection", async () => {
    const { person, dashboard, next, wrongCode } = await twoFactorAdmin();
    const attempt = await authorizationUrl(app, 'account:read');
    const browser = new Browser();
    const signInPage = await browser.get(attempt.url.toString());
    await browser.post(`${t.baseUrl}/oauth/authorize/sign-in`, { ...hiddenFields(signInPage.text), email: person.email, password: 'not the password' });
    const codePage = await withPassword(browser, attempt.url, person);
    await submitCode(browser, codePage.text, wrongCode);
    const consent = await browser.get(new URL((await submitCode(browser, codePage.text, next)).location!, t.baseUrl).toString());
    await browser.post(`${t.baseUrl}/oauth/authorize/decision`, { ...hiddenFields(consent.text), account_id: merchant.accountId, decision: 'approve' });

    const log = await dashboard.get('/dashboard/api/audit-log?page_size=100');
    expect(log.status).toBe(200);
    const mine = (log.body.entries as { actor: { id: string } }[]).filter((entry) => entry.actor.id === person.userId).slice(0, 4);
    const actor = { type: 'user', id: person.userId, label: person.email };
    expect(mine).toEqual([
      expect.objectContaining({
        actor,
        action: 'connected_app.connected',
        targetType: 'oauth_client',
        targetId: app.clientId,
        metadata: { appName: expect.stringMatching(/^Test App/), scopes: ['account:read'] },
        ipAddress: '127.0.0.1',
      }),
      expect.objectContaining({
        actor,
        action: 'session.signed_in',
        targetType: 'session',
        targetId: expect.stringMatching(/^ses_/),
        metadata: { via: 'oauth_authorize', clientId: app.clientId },
      }),
      expect.objectContaining({ actor, action: 'session.sign_in_failed', metadata: { reason: 'totp', via: 'oauth_authorize', clientId: app.clientId } }),
      expect.objectContaining({ actor, action: 'session.sign_in_failed', metadata: { reason: 'password', via: 'oauth_authorize', clientId: app.clientId } }),
    ]);
  });

  it('a user without two-factor sign-in goes from the password to consent, as before', async () => {
    const { url } = await authorizationUrl(app, 'account:read');
    const consent = await withPassword(new Browser(), url, merchant);
    expect(consent.text).toContain('name="decision" value="approve"');
  });
});
