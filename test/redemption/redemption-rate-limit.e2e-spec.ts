import { randomToken } from '@app/core';
import { REDEMPTION_MISSES_PER_WINDOW } from '@app/redemption';
import { RecipientClient, tokenOf } from '../support/redemption';
import { choiceReward, fund } from '../support/rewards';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

// Apps of their own: rate-limit counters live under each app's QUEUE_PREFIX.
describe('redemption rate limits per client address', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  async function appWithReward(env: Record<string, string> = {}) {
    const t = await startTestApp({ env });
    apps.push(t);
    const m = await seedMerchant(t);
    await fund(t, m, 10_000);
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000));
    return { t, recipient: new RecipientClient(t), token: tokenOf(res.body.redemptionUrl) };
  }

  it('repeated unknown tokens from one address are refused with 429, while a real link still opens from it', async () => {
    const { recipient, token } = await appWithReward();
    for (let i = 0; i < REDEMPTION_MISSES_PER_WINDOW; i++) {
      const res = await (i % 2 ? recipient.state(randomToken(32)) : recipient.page(randomToken(32)));
      expect(res.status).toBe(404);
    }
    const api = await recipient.state(randomToken(32));
    expect(api.status).toBe(429);
    expect(api.body).toMatchObject({ error: 'rate_limited' });
    expect(Number(api.headers.get('retry-after'))).toBeGreaterThan(0);
    const guessedPage = await recipient.page(randomToken(32));
    expect(guessedPage.status).toBe(429);
    expect(guessedPage.headers.get('content-type')).toMatch(/text\/html/);
    expect(guessedPage.body).toContain('Too many attempts');
    expect((await recipient.pick(randomToken(32), { utid: 'x', amountCents: 100 })).status).toBe(429);

    // Someone guessing from a shared address does not lock the recipients behind it out.
    expect((await recipient.page(token)).status).toBe(200);
    expect((await recipient.state(token)).status).toBe(200);
  });

  it('behind a trusted proxy (TRUST_PROXY) each client has its own budget, keyed on X-Forwarded-For', async () => {
    const { recipient, token } = await appWithReward({ TRUST_PROXY: '1' });
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < REDEMPTION_MISSES_PER_WINDOW; i++) {
      expect((await recipient.request('GET', `/r/${randomToken(32)}/api`, undefined, from('203.0.113.5'))).status).toBe(404);
    }
    expect((await recipient.request('GET', `/r/${randomToken(32)}/api`, undefined, from('203.0.113.5'))).status).toBe(429);
    // Another client behind the same proxy is not affected by the first one's misses.
    expect((await recipient.request('GET', `/r/${randomToken(32)}/api`, undefined, from('198.51.100.7'))).status).toBe(404);
    expect((await recipient.request('GET', `/r/${token}/api`, undefined, from('198.51.100.7'))).status).toBe(200);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: a client cannot pick a fresh address per guess', async () => {
    const { recipient } = await appWithReward();
    for (let i = 0; i < REDEMPTION_MISSES_PER_WINDOW; i++) {
      const res = await recipient.request('GET', `/r/${randomToken(32)}/api`, undefined, { 'x-forwarded-for': `203.0.113.${i + 1}` });
      expect(res.status).toBe(404);
    }
    const res = await recipient.request('GET', `/r/${randomToken(32)}/api`, undefined, { 'x-forwarded-for': '198.51.100.99' });
    expect(res.status).toBe(429);
  });

  it('every request counts against the address budget (docs/redemption.md), with RateLimit headers', async () => {
    const { recipient, token } = await appWithReward({ REDEMPTION_RATE_LIMIT_PER_MINUTE: '5' });
    const ok = [];
    for (let i = 0; i < 5; i++) ok.push(await recipient.state(token));
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(ok[4].headers.get('ratelimit-limit')).toBe('5');
    expect(ok[4].headers.get('ratelimit-remaining')).toBe('0');
    const refused = await recipient.page(token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });
});
