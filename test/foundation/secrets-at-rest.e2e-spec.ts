import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { DashboardClient } from '../support/dashboard-client';
import { connect, refresh, registerApp } from '../support/oauth';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { catalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

const run = promisify(execFile);

/**
 * What a database copy (a backup, a read replica) would give away (docs/secrets.md): after cards
 * are issued, webhook endpoints made and their secrets rotated, rewards sent with an idempotency
 * key, an app connected and two-factor set up, the whole `pg_dump` holds none of the secrets.
 */
describe('secrets at rest: a database dump', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    merchant = await seedMerchant(t);
    await fund(t, merchant, 100_000);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
  });

  it('holds no card credential, webhook secret, API key, client secret, OAuth token, redemption token, idempotency key or TOTP secret', async () => {
    const api = t.api.as(merchant.key);
    const secrets: Record<string, string> = {
      'API key (read+write)': merchant.key,
      'API key (read)': merchant.readKey,
      'API key (write)': merchant.writeKey,
    };

    // Webhook endpoints: the first secret (kept as previous after rotation) and the new one.
    const endpoint = await api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', events: [] });
    expect(endpoint.status).toBe(201);
    secrets['webhook secret (previous)'] = endpoint.body.secret;
    const rotated = await api.post(`/v1/webhook-endpoints/${endpoint.body.webhookEndpoint.id}/rotate-secret`, { keepPreviousForSeconds: 3600 });
    expect(rotated.status).toBe(200);
    secrets['webhook secret (current)'] = rotated.body.secret;

    // Rewards, sent with idempotency keys, one FIXED card issued and one CHOICE card picked.
    const picks = await catalogPicks(t, merchant.key);
    const fixed = await api.post('/v1/rewards', fixedReward(picks.fixedUsd), { headers: { 'idempotency-key': 'order-4821' } });
    expect(fixed.status).toBe(201);
    const choice = await api.post('/v1/rewards', choiceReward(5_000), { headers: { 'idempotency-key': 'order-4822' } });
    expect(choice.status).toBe(201);
    secrets['redemption token (FIXED)'] = tokenOf(fixed.body.redemptionUrl);
    secrets['redemption token (CHOICE)'] = tokenOf(choice.body.redemptionUrl);
    const picked = await new RecipientClient(t).pick(tokenOf(choice.body.redemptionUrl), {
      utid: picks.variableUsd.utid,
      amountCents: picks.variableUsd.minCents ?? 1_000,
    });
    expect(picked.status).toBe(201);
    const credentials: string[] = [];
    for (const id of [fixed.body.reward.id, choice.body.reward.id]) {
      const reward = await eventually(async () => {
        const got = await api.get(`/v1/rewards/${id}?include_credentials=true`);
        return got.body.reward.issuedCards.every((c: { status: string }) => c.status === 'ISSUED') ? got.body : undefined;
      }, 30_000);
      for (const card of reward.reward.issuedCards) {
        for (const credential of card.credentials) if (credential.type !== 'date') credentials.push(credential.value);
      }
    }
    expect(credentials.length).toBeGreaterThanOrEqual(2);
    credentials.forEach((value, i) => (secrets[`card credential ${i + 1}`] = value));

    // An OAuth app connected, its tokens refreshed once.
    const app = await registerApp(t, ['rewards:read']);
    secrets['OAuth client secret'] = app.clientSecret;
    const tokens = await connect(t, app, merchant, 'rewards:read');
    const renewed = await refresh(app, tokens.refresh_token!);
    secrets['OAuth access token'] = renewed.access_token;
    secrets['OAuth refresh token'] = renewed.refresh_token!;

    // Two-factor set up (pending until confirmed: the secret is stored already).
    const dashboard = new DashboardClient(t.baseUrl);
    await dashboard.signIn(merchant.email, merchant.password);
    const totp = await dashboard.post('/dashboard/api/me/totp');
    expect(totp.status).toBe(200);
    secrets['TOTP secret'] = totp.body.secret;

    const { stdout: dump } = await run('pg_dump', ['--no-owner', '--dbname', process.env.DATABASE_URL!], { maxBuffer: 256 * 1024 * 1024 });
    // The dump is a real one: it holds the rows these secrets belong to.
    expect(dump).toContain(fixed.body.reward.id);
    expect(dump).toContain(endpoint.body.webhookEndpoint.id);
    const found = Object.entries(secrets)
      .filter(([, value]) => dump.includes(value) || dump.includes(value.slice(-20)))
      .map(([name]) => name);
    expect(found).toEqual([]);
    // A guessable idempotency key is not in it either, nor its plain SHA-256 (the brute-forced one).
    expect(dump).not.toContain('order-4821');
    expect(dump).not.toContain(createHash('sha256').update(`${merchant.accountId}\0order-4821`).digest('hex'));
  });
});
