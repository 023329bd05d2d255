import { AUTH_FAILURES_PER_MINUTE } from '@app/auth';
import { registerApp, tokenRequest } from '../support/oauth';
import { seedMerchant, startTestApp } from '../support/test-app';

/** Wrong client secrets at the token endpoint count against the same per-address budget as bad keys on /v1. */
describe('OAuth token endpoint: failed client authentication is limited per address', () => {
  it('answers 429 rate_limited with Retry-After once the budget is spent, to the right client and to /v1 alike', async () => {
    // An app of its own, so its counters (its own QUEUE_PREFIX) take the failures.
    const t = await startTestApp();
    try {
      const app = await registerApp(t, ['account:read']);
      const merchant = await seedMerchant(t);
      const form = { grant_type: 'refresh_token', refresh_token: 'ort_unknown' };
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
        const res = await tokenRequest(t, form, { id: app.clientId, secret: 'ocs_wrong' });
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('invalid_client');
      }
      const blocked = await tokenRequest(t, form, { id: app.clientId, secret: 'ocs_wrong' });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toBe('rate_limited');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      // The address is blocked, not the secret: the right secret is refused too, and so is a key on /v1.
      expect((await tokenRequest(t, form, { id: app.clientId, secret: app.clientSecret })).status).toBe(429);
      expect((await t.api.as('sk_wrong').get('/v1/account')).status).toBe(429);
      expect((await t.api.as(merchant.key).get('/v1/account')).status).toBe(429);
    } finally {
      await t.close();
    }
  });
});
