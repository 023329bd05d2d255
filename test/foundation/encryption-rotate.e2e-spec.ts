import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { newKeyRingEntry } from '@app/core';
import { signWebhook } from '@app/webhooks';
import { DashboardClient } from '../support/dashboard-client';
import { eventually, runBuilt } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { catalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Every column that holds sealed values, with how many it holds under each key id (docs/secrets.md). */
async function sealedByKey(dataSource: DataSource): Promise<Record<string, number>> {
  const rows: { key: string; n: number }[] = await dataSource.query(`
    SELECT split_part(v, ':', 2) AS key, count(*)::int AS n FROM (
      SELECT credentials AS v FROM reward_cards UNION ALL
      SELECT token_sealed FROM redemption_links UNION ALL
      SELECT secret FROM webhook_endpoints UNION ALL
      SELECT previous_secret FROM webhook_endpoints UNION ALL
      SELECT totp_secret FROM users UNION ALL
      SELECT response_body FROM idempotency_keys) sealed
    WHERE v IS NOT NULL GROUP BY 1`);
  return Object.fromEntries(rows.map((r) => [r.key, r.n]));
}

/**
 * `encryption:rotate` (docs/secrets.md, Rotation): with a new key first in the ring it re-seals every
 * value under it, so the old key can then leave the ring and everything still opens.
 */
describe('encryption:rotate', () => {
  const oldKey = newKeyRingEntry('old');
  const newKey = newKeyRingEntry('new');
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const start = async (keys: string) => {
    const t = await startTestApp({ env: { ENCRYPTION_KEYS: keys } });
    return { t, worker: await startTestWorker(t) };
  };
  const rotate = async (keys: string) => {
    const run = await runBuilt('cli', ['encryption:rotate', '--batch-size', '2'], { DATABASE_URL: process.env.DATABASE_URL!, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-rotate`, ENCRYPTION_KEYS: keys });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(run.stdout);
  };

  it('re-seals every value under the first key; after the old key is removed everything still opens; a second run finds nothing', async () => {
    // Under the old key: cards issued, a link, webhook secrets (current and previous), two-factor, idempotent responses.
    let { t, worker }: { t: TestApp; worker: TestWorker } = await start(oldKey);
    let merchant: SeededMerchant;
    let fixed: any;
    let choice: any;
    let before: any[];
    let webhookSecret: string;
    let endpointId: string;
    let totpSecret: string;
    try {
      merchant = await seedMerchant(t);
      await fund(t, merchant, 50_000);
      const api = t.api.as(merchant.key);
      const picks = await catalogPicks(t, merchant.key);
      const endpoint = await api.post('/v1/webhook-endpoints', { url: receiver.url('/rotate'), events: [] });
      endpointId = endpoint.body.webhookEndpoint.id;
      webhookSecret = (await api.post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`, { keepPreviousForSeconds: 3600 })).body.secret;
      fixed = (await api.post('/v1/rewards', fixedReward(picks.fixedUsd), { headers: { 'idempotency-key': 'rotate-1' } })).body;
      choice = (await api.post('/v1/rewards', choiceReward(3_000), { headers: { 'idempotency-key': 'rotate-2' } })).body;
      expect((await new RecipientClient(t).pick(tokenOf(choice.redemptionUrl), { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.minCents ?? 1_000 })).status).toBe(201);
      before = [];
      for (const id of [fixed.reward.id, choice.reward.id]) {
        before.push(
          await eventually(async () => {
            const got = await api.get(`/v1/rewards/${id}?include_credentials=true`);
            // Settled: cards issued and the e-mail accepted, so nothing changes between this read and the one after rotation.
            const settled = got.body.reward.emailStatus === 'DELIVERED' && got.body.reward.issuedCards.every((c: any) => c.status === 'ISSUED');
            return settled ? got.body : undefined;
          }, 30_000),
        );
      }
      const dashboard = new DashboardClient(t.baseUrl);
      await dashboard.signIn(merchant.email, merchant.password);
      totpSecret = (await dashboard.post('/dashboard/api/me/totp')).body.secret;
    } finally {
      await worker.close();
      await t.close();
    }
    const dataSource = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL! });
    await dataSource.initialize();
    try {
      // 2 cards, 2 links, 2 webhook secrets, 1 TOTP secret, 2 idempotent responses
      const total = 9;
      expect(await sealedByKey(dataSource)).toEqual({ old: total });

      expect(await rotate(`${newKey},${oldKey}`)).toEqual({ reencrypted: total });
      expect(await sealedByKey(dataSource)).toEqual({ new: total });
      expect(await rotate(`${newKey},${oldKey}`)).toEqual({ reencrypted: 0 });
    } finally {
      await dataSource.destroy();
    }

    // The old key is gone: credentials, the link, the webhook signature and two-factor all still work.
    ({ t, worker } = await start(newKey));
    try {
      const api = t.api.as(merchant.key);
      for (const [i, id] of [fixed.reward.id, choice.reward.id].entries()) {
        const got = await api.get(`/v1/rewards/${id}?include_credentials=true`);
        expect(got.status).toBe(200);
        expect(got.body.reward).toEqual(before[i].reward);
        // The same token (each test app has a base URL of its own).
        expect(tokenOf(got.body.redemptionUrl)).toBe(tokenOf([fixed, choice][i].redemptionUrl));
      }
      const state = await new RecipientClient(t).state(tokenOf(choice.redemptionUrl));
      expect(state.status).toBe(200);
      expect(state.body.cards[0].credentials).toEqual(before[1].reward.issuedCards[0].credentials);

      expect((await api.post(`/v1/webhook-endpoints/${endpointId}/test`)).status).toBe(202);
      const ping = await eventually(async () => receiver.received.find((r) => r.path === '/rotate' && (r.json as { type?: string })?.type === 'ping'), 20_000);
      const timestamp = Number(ping.headers['x-webhook-timestamp']);
      expect(String(ping.headers['x-webhook-signature'])).toContain(`v1=${signWebhook(webhookSecret, timestamp, ping.body)}`);

      const dashboard = new DashboardClient(t.baseUrl);
      await dashboard.signIn(merchant.email, merchant.password);
      expect((await dashboard.post('/dashboard/api/me/totp/confirm', { code: await generate({ secret: totpSecret }) })).status).toBe(204);
    } finally {
      await worker.close();
      await t.close();
    }
  });
});
