import { signedIn } from '../support/dashboard';
import { choiceReward, startWithFundedMerchant } from '../support/rewards';
import { SeededMerchant, TestApp } from '../support/test-app';

/**
 * Every answer of /v1 and /dashboard/api says `Cache-Control: no-store`, successes and errors alike,
 * so no secret shown once (a new API key, a TOTP secret, card credentials) is kept by a browser or a
 * proxy (docs/errors.md, Caching).
 */
describe('Cache-Control: no-store on the APIs', () => {
  let t: TestApp;
  let m: SeededMerchant;

  beforeAll(async () => {
    ({ t, m } = await startWithFundedMerchant(10_000));
  });
  afterAll(() => t.close());

  it('on responses that carry a secret: a new API key, a TOTP secret', async () => {
    const dashboard = await signedIn(t, m);
    const key = await dashboard.post('/dashboard/api/api-keys', { name: 'Checkout server', scopes: ['read', 'write'] });
    expect(key.status).toBe(201);
    expect(key.body.secret).toMatch(/^sk_/);
    expect(key.headers.get('cache-control')).toBe('no-store');
    const totp = await dashboard.post('/dashboard/api/me/totp');
    expect(totp.status).toBeLessThan(300);
    expect(totp.headers.get('cache-control')).toBe('no-store');
  });

  it('on ordinary successes of both APIs', async () => {
    for (const res of [
      await t.api.as(m.key).get('/v1/wallet'),
      await t.api.as(m.key).post('/v1/rewards', choiceReward(500)),
      await t.api.as(m.key).get('/v1/rewards'),
      await (await signedIn(t, m)).get('/dashboard/api/api-keys'),
    ]) {
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('on errors, including those answered before any route: 401, 404, 400 unreadable JSON, 415', async () => {
    const unauthorized = await t.api.as(null).get('/v1/wallet');
    const unknown = await t.api.as(m.key).get('/v1/no-such-route');
    const unreadable = await t.api.as(m.key).post('/v1/rewards', undefined, { rawBody: '{"type":' });
    const notJson = await fetch(`${t.baseUrl}/v1/rewards`, { method: 'POST', headers: { authorization: `Bearer ${m.key}`, 'content-type': 'text/plain' }, body: 'x' });
    expect([unauthorized.status, unknown.status, unreadable.status, notJson.status]).toEqual([401, 404, 400, 415]);
    for (const res of [unauthorized, unknown, unreadable, notJson]) expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
