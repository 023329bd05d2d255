import { scrypt as scryptCallback, ScryptOptions } from 'node:crypto';
import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { PASSWORD_KDF, PasswordKdf } from '@app/account';
import { hashSecret, newId, randomToken } from '@app/core';
import { addMember, signedIn } from '../support/dashboard';
import { DashboardClient } from '../support/dashboard-client';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * scrypt as the service runs it, counted, and able to hold one computation in progress until the test
 * lets it go: how a test sees whether a request hashed, and fills the hashing bound without sleeping.
 */
class ObservedKdf {
  calls = 0;
  private hold: { entered: () => void; released: Promise<void> } | null = null;

  readonly kdf: PasswordKdf = async (password, salt, keylen, options) => {
    this.calls += 1;
    const hold = this.hold;
    this.hold = null;
    if (hold) {
      hold.entered();
      await hold.released;
    }
    return scrypt(password, salt, keylen, options);
  };

  /** The next computation waits for `release()`; `entered` resolves once it has started. */
  holdNext(): { entered: Promise<void>; release: () => void } {
    let release!: () => void;
    let entered!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
    this.hold = { entered, released };
    return { entered: enteredPromise, release };
  }
}

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))));
}

describe('Dashboard: password hashing is dear, so it is spent only where it must be', () => {
  const observed = new ObservedKdf();
  let t: TestApp;
  let db: DataSource;
  let merchant: SeededMerchant;
  let addresses = 0;
  /** A client seen from an address of its own (the app trusts X-Forwarded-For from loopback), so each test has its own budget. */
  const fromNewAddress = () => {
    addresses += 1;
    return { headers: { 'x-forwarded-for': `198.51.100.${addresses}` } };
  };

  beforeAll(async () => {
    t = await startTestApp({
      // One hash at a time and one waiting: small enough for a test to fill.
      env: { PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1', TRUST_PROXY: 'loopback' },
      overrides: [{ provide: PASSWORD_KDF, useValue: observed.kdf }],
    });
    db = t.app.get(DataSource);
    merchant = await seedMerchant(t);
  });
  afterAll(() => t.close());

  const pendingInvitation = async (email: string) => {
    const token = randomToken(32);
    await db.query(
      `INSERT INTO invitations (id, account_id, email, role, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, 'viewer', $4, $5, now() + interval '1 day')`,
      [newId('inv'), merchant.accountId, email, hashSecret(token), merchant.userId],
    );
    return token;
  };
  const resetLink = async (userId: string, expiresIn = '30 minutes') => {
    const token = randomToken(32);
    await db.query(
      `INSERT INTO password_resets (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, now() + $4::interval)`,
      [newId('pwr'), userId, hashSecret(token), expiresIn],
    );
    return token;
  };

  it('a made-up, used or expired link is answered 404 without hashing the password', async () => {
    const visitor = new DashboardClient(t.baseUrl);
    const options = fromNewAddress();
    const person = await addMember(t, merchant.accountId, 'viewer');
    const expiredReset = await resetLink(person.userId, '-1 second');
    const expiredInvitation = await pendingInvitation(`expired-${randomToken(4).toLowerCase()}@example.test`);
    await db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [hashSecret(expiredInvitation)]);

    const before = observed.calls;
    for (const token of [randomToken(32), expiredReset]) {
      expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'a fresh new passphrase' }, options)).status).toBe(404);
    }
    for (const token of [randomToken(32), expiredInvitation]) {
      expect((await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'a fresh new passphrase' }, options)).status).toBe(404);
    }
    expect(observed.calls).toBe(before);

    // A link that works costs exactly one hash, and once used it is a made-up link again.
    const reset = await resetLink(person.userId);
    expect((await visitor.post(`/dashboard/api/password-reset/${reset}`, { password: 'a fresh new passphrase' }, options)).status).toBe(204);
    const invitation = await pendingInvitation(`joiner-${randomToken(4).toLowerCase()}@example.test`);
    expect((await visitor.post(`/dashboard/api/invitations/${invitation}/accept`, { password: 'a fresh new passphrase' }, options)).status).toBe(201);
    expect(observed.calls).toBe(before + 2);
    expect((await visitor.post(`/dashboard/api/password-reset/${reset}`, { password: 'another new passphrase' }, options)).status).toBe(404);
    expect((await new DashboardClient(t.baseUrl).post(`/dashboard/api/invitations/${invitation}/accept`, { password: 'another new passphrase' }, options)).status).toBe(404);
    expect(observed.calls).toBe(before + 2);
  });

  it.each([
    ['a reset link', (token: string) => `/dashboard/api/password-reset/${token}`],
    ['an invitation', (token: string) => `/dashboard/api/invitations/${token}/accept`],
  ])('using %s is limited to 20 tries a minute per client address (429 with Retry-After)', async (_what, path) => {
    const visitor = new DashboardClient(t.baseUrl);
    const options = fromNewAddress();
    for (let i = 0; i < 20; i += 1) {
      expect((await visitor.post(path(randomToken(32)), { password: 'a fresh new passphrase' }, options)).status).toBe(404);
    }
    const limited = await visitor.post(path(randomToken(32)), { password: 'a fresh new passphrase' }, options);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another address keeps its own budget.
    expect((await visitor.post(path(randomToken(32)), { password: 'a fresh new passphrase' }, fromNewAddress())).status).toBe(404);
  });

  it('past the hashing bound and its queue, a sign-in is answered 503 with Retry-After; the others go through', async () => {
    const person = await addMember(t, merchant.accountId, 'viewer');
    const signIn = () => new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: person.email, password: person.password }, fromNewAddress());
    const held = observed.holdNext();
    const first = signIn();
    await held.entered;
    // The bound (1) is taken; of the next two, one waits in the queue (1) and the other is refused at once.
    const [second, third] = [signIn(), signIn()];
    const refused = await Promise.race([second, third]);
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: 'internal', message: expect.stringMatching(/retry/i) });
    expect(refused.headers.get('retry-after')).toBe('1');
    held.release();
    const statuses = (await Promise.all([first, second, third])).map((response) => response.status);
    expect(statuses.sort()).toEqual([201, 201, 503]);
    // Nothing is held any more: the next one simply signs in.
    expect((await signIn()).status).toBe(201);
  });

  describe('wrong current passwords and two-factor codes behind a session', () => {
    const codeAt = (secret: string, offsetSteps: number) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

    it('count per user, across sessions: after 10, even the right answer is 429 for the rest of the window', async () => {
      const person = await addMember(t, merchant.accountId, 'viewer');
      const one = await signedIn(t, person);
      const two = await signedIn(t, person);
      const setup = await one.post('/dashboard/api/me/totp');
      expect((await one.post('/dashboard/api/me/totp/confirm', { code: await codeAt(setup.body.secret, 0) })).status).toBe(204);
      const valid = await Promise.all([-1, 0, 1, 2].map((step) => codeAt(setup.body.secret, step)));
      const wrongCode = ['000000', '111111', '222222', '333333', '444444'].find((code) => !valid.includes(code))!;

      for (let i = 0; i < 6; i += 1) {
        expect((await one.post('/dashboard/api/me/password', { currentPassword: `not it ${i}`, newPassword: 'a brand new passphrase' })).status).toBe(403);
      }
      for (let i = 0; i < 4; i += 1) {
        expect((await two.post('/dashboard/api/me/totp/disable', { code: wrongCode })).status).toBe(422);
      }

      const password = await one.post('/dashboard/api/me/password', { currentPassword: person.password, newPassword: 'a brand new passphrase' });
      expect(password.status).toBe(429);
      expect(password.body.error).toBe('rate_limited');
      expect(Number(password.headers.get('retry-after'))).toBeGreaterThan(60);
      const disable = await two.post('/dashboard/api/me/totp/disable', { code: await codeAt(setup.body.secret, 1) });
      expect(disable.status).toBe(429);
      expect(Number(disable.headers.get('retry-after'))).toBeGreaterThan(60);
      // Nothing changed: the old password still signs in (with its code), and two-factor is still on.
      const check = new DashboardClient(t.baseUrl);
      expect((await check.post('/dashboard/api/session', { email: person.email, password: person.password })).body.error).toBe('totp_required');

      // Another user of the same account is not held back.
      const colleague = await addMember(t, merchant.accountId, 'viewer');
      const theirs = await signedIn(t, colleague);
      expect((await theirs.post('/dashboard/api/me/password', { currentPassword: 'not it', newPassword: 'a brand new passphrase' })).status).toBe(403);
      expect((await theirs.post('/dashboard/api/me/password', { currentPassword: colleague.password, newPassword: 'a brand new passphrase' })).status).toBe(204);
    });
  });
});
