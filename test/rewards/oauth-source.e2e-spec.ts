import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { connect, registerApp } from '../support/oauth';
import { choiceReward, fund } from '../support/rewards';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('rewards sent by a marketplace app (OAuth token)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('are created with source "oauth", in single and bulk sends, within the granted scopes only', async () => {
    const merchant = await seedMerchant(t);
    await fund(t, merchant, 10_000);
    const app = await registerApp(t, ['rewards:read', 'rewards:write']);
    const tokens = await connect(t, app, merchant, 'rewards:write');
    const api = t.api.as(tokens.access_token);

    const single = await api.post('/v1/rewards', choiceReward(1_000));
    expect(single.status).toBe(201);
    expect(single.body.reward.source).toBe('oauth');
    const bulk = await api.post('/v1/rewards/bulk', { rewards: [choiceReward(1_000)] });
    expect(bulk.status).toBe(207);
    const listed = (await t.api.as(merchant.readKey).get(`/v1/rewards/${bulk.body.results[0].rewardId}`)).body.reward;
    expect(listed.source).toBe('oauth');

    // Granted rewards:write only: reading needs rewards:read, funding and branding are never for tokens.
    expect((await api.get('/v1/rewards')).status).toBe(403);
    expect((await api.post('/v1/topups', { amountCents: 1_000 })).status).toBe(403);
    expect((await api.patch('/v1/account/branding', { senderName: 'App' })).status).toBe(403);
    await expectLedgerInvariants(t.app.get(DataSource), merchant.accountId);
  });
});
