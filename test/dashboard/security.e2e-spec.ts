import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { DashboardClient } from '../support/dashboard-client';
import { addMember, signedIn } from '../support/dashboard';
import { SmtpSink } from '../support/smtp-sink';
import { clockOverride, TestClock } from '../support/test-clock';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('Dashboard: own password and two-factor sign-in', () => {
  const smtp = new SmtpSink();
  const clock = new TestClock();
  let t: TestApp;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start() }, overrides: [clockOverride(clock)] });
    merchant = await seedMerchant(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  describe('changing the password', () => {
    it('needs the current password (403) and a strong new one (400); then ends the other sessions', async () => {
      const person = await addMember(t, merchant.accountId, 'viewer');
      const here = await signedIn(t, person);
      const elsewhere = await signedIn(t, person);
      const wrong = await here.post('/dashboard/api/me/password', { currentPassword: 'not it at all', newPassword: 'a brand new passphrase' });
      expect(wrong.status).toBe(403);
      const weak = await here.post('/dashboard/api/me/password', { currentPassword: person.password, newPassword: 'short' });
      expect(weak.status).toBe(400);
      expect(weak.body.issues[0].path).toBe('newPassword');
      expect((await elsewhere.get('/v1/account')).status).toBe(200);

      const changed = await here.post('/dashboard/api/me/password', { currentPassword: person.password, newPassword: 'a brand new passphrase' });
      expect(changed.status).toBe(204);
      expect((await elsewhere.get('/v1/account')).status).toBe(401);
      expect((await elsewhere.get('/dashboard/api/session')).status).toBe(401);
      expect((await here.get('/v1/account')).status).toBe(200);
      expect((await new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: person.email, password: person.password })).status).toBe(401);
      await new DashboardClient(t.baseUrl).signIn(person.email, 'a brand new passphrase');
    });
  });

  describe('resetting a forgotten password', () => {
    it('answers 202 whether or not the e-mail has a user; the link works once and ends every session', async () => {
      const person = await addMember(t, merchant.accountId, 'admin');
      const session = await signedIn(t, person);
      const visitor = new DashboardClient(t.baseUrl);
      const unknown = await visitor.post('/dashboard/api/password-reset', { email: 'nobody-here@example.test' });
      const known = await visitor.post('/dashboard/api/password-reset', { email: person.email.toUpperCase() });
      expect(unknown.status).toBe(202);
      expect(known.status).toBe(202);
      expect(known.text).toBe(unknown.text);

      const mail = await smtp.waitFor((m) => m.to.includes(person.email));
      const token = new RegExp(`${t.baseUrl}/dashboard/reset-password/([A-Za-z0-9]+)`).exec(mail.text)![1];
      expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'password1234' })).status).toBe(400);
      expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'my recovered passphrase' })).status).toBe(204);
      expect((await session.get('/v1/account')).status).toBe(401);
      // Replayed: 404, and the password stays the one set with it.
      expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'an attacker passphrase' })).status).toBe(404);
      await new DashboardClient(t.baseUrl).signIn(person.email, 'my recovered passphrase');
      expect(smtp.messages.some((m) => m.to.includes('nobody-here@example.test'))).toBe(false);
    });

    it('an expired or unknown link: 404', async () => {
      const person = await addMember(t, merchant.accountId, 'viewer');
      await new DashboardClient(t.baseUrl).post('/dashboard/api/password-reset', { email: person.email });
      const mail = await smtp.waitFor((m) => m.to.includes(person.email));
      const token = new RegExp(`/dashboard/reset-password/([A-Za-z0-9]+)`).exec(mail.text)![1];
      await t.app.get(DataSource).query(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
      const visitor = new DashboardClient(t.baseUrl);
      expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'my recovered passphrase' })).status).toBe(404);
      expect((await visitor.post(`/dashboard/api/password-reset/${'x'.repeat(43)}`, { password: 'my recovered passphrase' })).status).toBe(404);
    });
  });

  describe('two-factor sign-in (TOTP)', () => {
    const codeAt = (secret: string, offsetSteps: number) => generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) + offsetSteps * 30 });
    afterEach(() => clock.reset());

    it('set up with a code, then required at sign-in; a code once used is refused (401), and turning it off needs a code', async () => {
      // Three consecutive steps are used below: the service's clock stands still, so none slides out of the
      // window. An hour ahead of the wall clock: the codes are checked against the service's clock, not another.
      clock.freeze(new Date(Date.now() + 3_600_000));
      const person = await addMember(t, merchant.accountId, 'developer');
      const client = await signedIn(t, person);
      const setup = await client.post('/dashboard/api/me/totp');
      expect(setup.status).toBe(200);
      const { secret, otpauthUrl } = setup.body;
      expect(secret).toMatch(/^[A-Z2-7]+=*$/);
      expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
      expect(new URL(otpauthUrl).searchParams.get('secret')).toBe(secret);

      const wrongCode = (await codeAt(secret, 0)) === '000000' ? '111111' : '000000';
      expect((await client.post('/dashboard/api/me/totp/confirm', { code: wrongCode })).status).toBe(422);
      const previous = await codeAt(secret, -1);
      expect((await client.get('/dashboard/api/session')).body.user.twoFactorEnabled).toBe(false);
      expect((await client.post('/dashboard/api/me/totp/confirm', { code: previous })).status).toBe(204);
      expect((await client.get('/dashboard/api/session')).body.user.twoFactorEnabled).toBe(true);

      const signIn = (body: Record<string, string>) =>
        new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: person.email, password: person.password, ...body });
      const needed = await signIn({});
      expect(needed.status).toBe(401);
      expect(needed.body.error).toBe('totp_required');
      expect((await signIn({ totpCode: previous })).status).toBe(401); // used at confirmation
      const current = await codeAt(secret, 0);
      const ok = await signIn({ totpCode: current });
      expect(ok.status).toBe(201);
      const replayed = await signIn({ totpCode: current });
      expect(replayed.status).toBe(401);
      expect(replayed.body.error).toBe('unauthorized');

      expect((await client.post('/dashboard/api/me/totp/disable', { code: current })).status).toBe(422);
      expect((await client.post('/dashboard/api/me/totp/disable', { code: await codeAt(secret, 1) })).status).toBe(204);
      expect((await client.get('/dashboard/api/session')).body.user.twoFactorEnabled).toBe(false);
      expect((await signIn({})).status).toBe(201);
    });
  });
});
