import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { EVENT_TYPES } from '@app/core';
import { Contract, OPENAPI_PATH } from '../support/contract';
import { eventually } from '../support/processes';
import { catalogPicks, fixedReward, fund } from '../support/rewards';
import { seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhook payloads are part of openapi.yaml (a schema per event type, the signature headers). Every
 * suite that uses WebhookReceiver checks each delivery it gets against them; this one shows the
 * check refuses what breaks the contract and that real deliveries of each kind pass it.
 */
describe('webhook payloads in the contract', () => {
  const contract = new Contract();
  const headers = { 'x-webhook-id': 'evt_1', 'x-webhook-timestamp': '1700000000', 'x-webhook-signature': `v1=${'a'.repeat(64)}` };
  const ping = { id: 'evt_1', type: 'ping', createdAt: '2026-11-22T10:00:00.000Z', data: { webhookEndpointId: 'we_1' } };

  it('has a schema for every event type and for ping', () => {
    const schemas = parse(readFileSync(OPENAPI_PATH, 'utf8')).components.schemas;
    expect(Object.keys(schemas.WebhookEvent.discriminator.mapping).sort()).toEqual([...EVENT_TYPES, 'ping'].sort());
    expect(() => contract.checkWebhook(ping, headers)).not.toThrow();
    // A known type with another type's data is refused.
    expect(() => contract.checkWebhook({ ...ping, type: 'wallet.credited' }, headers)).toThrow(/does not match/);
  });

  it('refuses an unknown field, a wrong data shape, an unknown type, and a missing or malformed signature', () => {
    expect(() => contract.checkWebhook({ ...ping, extra: 1 }, headers)).toThrow();
    expect(() => contract.checkWebhook({ ...ping, data: { webhookEndpointId: 'we_1', secret: 'x' } }, headers)).toThrow();
    expect(() => contract.checkWebhook({ ...ping, type: 'reward.exploded' }, headers)).toThrow();
    expect(() => contract.checkWebhook(ping, { ...headers, 'x-webhook-signature': undefined })).toThrow(/missing/);
    expect(() => contract.checkWebhook(ping, { ...headers, 'x-webhook-signature': 'sha256=abc' })).toThrow(/X-Webhook-Signature/);
  });

  describe('real deliveries', () => {
    let t: TestApp;
    let workers: TestWorker;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      t = await startTestApp({ env: { WEBHOOK_RETRY_BASE_MS: '50' } });
      workers = await startTestWorker(t);
    });
    afterAll(async () => {
      await workers.close();
      await t.close();
      await receiver.close(); // fails the suite if any delivery broke the contract
    });

    it('ping, wallet.credited, reward.* and card.* deliveries all match their schemas', async () => {
      const merchant = await seedMerchant(t);
      const hook = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/all'), events: [] });
      expect(hook.status).toBe(201);
      expect((await t.api.as(merchant.key).post(`/v1/webhook-endpoints/${hook.body.webhookEndpoint.id}/test`)).status).toBe(202);
      await fund(t, merchant, 100_000);
      const picks = await catalogPicks(t, merchant.key);
      expect((await t.api.as(merchant.key).post('/v1/rewards', fixedReward(picks.fixedUsd))).status).toBe(201);
      expect((await t.api.as(merchant.key).post('/v1/rewards', fixedReward(picks.failingFixed))).status).toBe(201);

      const wanted = ['ping', 'wallet.credited', 'reward.created', 'reward.sent', 'reward.redeemed', 'card.issued', 'card.failed'];
      await eventually(async () => {
        const seen = new Set(receiver.at('/all').map((r) => r.json?.type));
        return wanted.every((type) => seen.has(type));
      }, 30_000);
      expect(receiver.checked).toBeGreaterThanOrEqual(wanted.length);
      expect(receiver.violations).toEqual([]);
    });
  });
});
