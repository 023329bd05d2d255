import { sharedContract } from '../support/contract';
import { registerApp } from '../support/oauth';
import { choiceReward, fund } from '../support/rewards';
import { seedMerchant, SeededMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The statuses and headers a generated client or a validating proxy relies on: each answer here is
 * also checked against openapi.yaml by the API client (status documented, body and headers fit).
 */
describe('HTTP statuses and headers of the contract', () => {
  let t: TestApp;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    // No worker runs in this file: the endpoints here are at public names, and are never delivered to (docs/operations.md, "Tests are hermetic").
    t = await startTestApp();
    merchant = await seedMerchant(t);
  });
  afterAll(() => t.close());

  it('a body that is not JSON where JSON is expected is 415 in the error shape, not a 400 about missing fields', async () => {
    const res = await t.api.as(merchant.key).post('/v1/rewards', undefined, {
      rawBody: 'type=FIXED&valueCents=2500',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: 'bad_request', message: expect.stringMatching(/application\/json/), issues: [{ path: 'body', message: expect.any(String) }] });
  });

  it('a body-less POST needs no Content-Type (rotate-secret takes an optional body)', async () => {
    const created = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: 'https://example.com/hooks', events: [] });
    expect(created.status).toBe(201);
    const res = await t.api.as(merchant.key).request('POST', `/v1/webhook-endpoints/${created.body.webhookEndpoint.id}/rotate-secret`, {
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
  });

  it('routes that take no body: none (any or no Content-Type) just works; a non-JSON or oversized body is the declared 415/413', async () => {
    await fund(t, merchant, 10_000);
    const sent = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000));
    const resend = `/v1/rewards/${sent.body.reward.id}/resend`;
    expect((await t.api.as(merchant.key).request('POST', resend)).status).toBe(200);
    expect((await t.api.as(merchant.key).request('POST', resend, { headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
    // Each answer is checked against openapi.yaml by the client: 415 and 413 must be declared on resend.
    const form = await t.api.as(merchant.key).request('POST', resend, { rawBody: 'a=b', headers: { 'content-type': 'text/plain' } });
    expect(form.status).toBe(415);
    const huge = await t.api.as(merchant.key).request('POST', resend, { rawBody: JSON.stringify({ pad: 'x'.repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('bad_request');
  });

  it('a key without the scope gets 403 with the RFC 6750 insufficient_scope challenge naming it', async () => {
    const res = await t.api.as(merchant.readKey).post('/v1/webhook-endpoints', { url: 'https://example.com/hooks', events: [] });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="webhooks:write"');
    const credentials = await t.api.as(merchant.readKey).get('/v1/rewards/rw_unknown?include_credentials=true');
    expect(credentials.status).toBe(403);
    expect(credentials.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="rewards:write"');
  });

  it('the contract and the service agree on what a send refuses: null for an optional field, expiresAt without an offset, control characters', async () => {
    const contract = sharedContract();
    const refused = [
      choiceReward(1_000, { externalId: null }),
      choiceReward(1_000, { campaign: null }),
      choiceReward(1_000, { expiresAt: '2099-01-31T12:00:00' }),
      choiceReward(1_000, { externalId: 'order-\u001b[31m1' }),
    ];
    for (const body of refused) {
      expect(contract.acceptsRequestBody('POST', '/v1/rewards', body)).toBe(false);
      const res = await t.api.as(merchant.key).post('/v1/rewards', body);
      expect(res.status).toBe(400);
    }
    const accepted = choiceReward(1_000, { expiresAt: '2099-01-31T12:00:00+02:00', externalId: 'order-1' });
    expect(contract.acceptsRequestBody('POST', '/v1/rewards', accepted)).toBe(true);
    expect((await t.api.as(merchant.key).post('/v1/rewards', accepted)).status).toBe(201);
  });

  it('an unknown query parameter is 400 naming it where the operation lists query parameters; ignored where it lists none (info.description)', async () => {
    for (const path of ['/v1/rewards', '/v1/catalog']) {
      const res = await t.api.as(merchant.key).get(`${path}?bogus=1`);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.issues).toContainEqual({ path: 'bogus', message: expect.any(String) });
    }
    expect((await t.api.as(merchant.key).get('/v1/wallet?bogus=1')).status).toBe(200);
  });

  it('a webhook URL with credentials is refused by the service and by the contract', async () => {
    const body = { url: 'https://user:pass@example.com/hooks', events: [] };
    expect(sharedContract().acceptsRequestBody('POST', '/v1/webhook-endpoints', body)).toBe(false);
    expect((await t.api.as(merchant.key).post('/v1/webhook-endpoints', body)).status).toBe(400);
    expect(sharedContract().acceptsRequestBody('POST', '/v1/webhook-endpoints', { url: 'https://example.com/a@b', events: [] })).toBe(true);
  });

  it('an oversized body is 413 in the error shape', async () => {
    const res = await t.api.as(merchant.key).patch('/v1/account/branding', { senderName: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('bad_request');
  });

  it('401 on /v1 challenges with Bearer, and says invalid_token when a credential was presented', async () => {
    const missing = await t.api.get('/v1/wallet');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');

    const wrong = await t.api.as('sk_not_a_real_key').get('/v1/wallet');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('authenticated answers carry the RateLimit headers the contract declares', async () => {
    const res = await t.api.as(merchant.key).get('/v1/wallet');
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('ratelimit-limit'))).toBe(t.config.rateLimitPerMinute);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(t.config.rateLimitPerMinute);
  });
});

describe('OAuth client authentication failures are limited per address', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('after 60 wrong client secrets in a minute, /oauth/token and /oauth/revoke answer 429 with Retry-After, even to the right secret', async () => {
    const app = await registerApp(t, ['rewards:read']);
    const basic = (secret: string) => `Basic ${Buffer.from(`${app.clientId}:${secret}`).toString('base64')}`;
    const post = (path: string, secret: string, body: string) =>
      t.api.request('POST', path, {
        rawBody: body,
        headers: { authorization: basic(secret), 'content-type': 'application/x-www-form-urlencoded' },
      });

    for (let i = 0; i < 60; i += 1) {
      const res = await post('/oauth/token', `wrong-${i}`, 'grant_type=refresh_token&refresh_token=x');
      expect(res.status).toBe(401);
    }
    const token = await post('/oauth/token', app.clientSecret, 'grant_type=refresh_token&refresh_token=x');
    expect(token.status).toBe(429);
    expect(token.body).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
    expect(Number(token.headers.get('retry-after'))).toBeGreaterThan(0);

    const revoke = await post('/oauth/revoke', app.clientSecret, 'token=whatever');
    expect(revoke.status).toBe(429);

    // The budget is the one /v1 uses: the same address is refused there too.
    const v1 = await t.api.as('sk_not_a_real_key').get('/v1/wallet');
    expect(v1.status).toBe(429);
  });
});
