import { DataSource } from 'typeorm';
import { RecipientClient, tokenOf } from '../support/redemption';
import { MAX_JSON_DEPTH } from '@app/core';
import { choiceReward, countRows, fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** Input PostgreSQL or the validator cannot take: a clear 400 in the error shape, never a 500, and nothing written. */
describe('unsafe input: NUL characters and deep JSON', () => {
  let t: TestApp;
  let m: SeededMerchant;

  beforeAll(async () => {
    // No worker runs in this file: the endpoints here are at public names, and are never delivered to (docs/operations.md, "Tests are hermetic").
    t = await startTestApp();
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
  });
  afterAll(() => t.close());

  const rewardCount = () => countRows(t.app.get(DataSource), 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId]);
  const wallet = async () => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;

  it('a NUL in a body string is 400 naming the field; no reward and no money move', async () => {
    const [before, rewards] = [await wallet(), await rewardCount()];
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { recipient: recipient({ firstName: 'Ada\u0000Lovelace' }) }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', issues: [{ path: 'recipient.firstName' }] });
    expect(await wallet()).toEqual(before);
    expect(await rewardCount()).toBe(rewards);

    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: 'https://example.com/hook', events: ['reward.created'], description: 'a\u0000b' });
    expect(hook.status).toBe(400);
    expect(hook.body.issues).toEqual([expect.objectContaining({ path: 'description' })]);
  });

  it('a NUL in a query filter or a path id is 400, not a 500', async () => {
    const filtered = await t.api.as(m.key).get('/v1/rewards?external_id=order%00-1');
    expect(filtered.status).toBe(400);
    expect(filtered.body).toMatchObject({ error: 'bad_request', issues: [{ path: 'query' }] });
    const byId = await t.api.as(m.key).get('/v1/rewards/rw_%00abc');
    expect(byId.status).toBe(400);
    expect(byId.body.issues).toEqual([expect.objectContaining({ path: 'path' })]);
    const cancel = await t.api.as(m.key).post('/v1/rewards/rw_%00abc/cancel');
    expect(cancel.status).toBe(400);
  });

  it("the recipient's pick with a NUL item id is 400, and the reward keeps its value", async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000));
    const token = tokenOf(sent.body.redemptionUrl);
    const pick = await new RecipientClient(t).pick(token, { utid: 'U\u00001', amountCents: 500 });
    expect(pick.status).toBe(400);
    expect(pick.body).toMatchObject({ error: 'bad_request', issues: [{ path: 'utid' }] });
    expect((await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}`)).body.reward.remainingValueCents).toBe(2_000);
  });

  it('JSON nested 20,000 levels deep is 400 at once, and the service keeps answering', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const res = await t.api.as(m.key).post('/v1/rewards', undefined, { rawBody: `{"type":"CHOICE","valueCents":100,"recipient":${deep}}` });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringContaining('nested') });
    // One level past the limit is refused for its depth; a normal body still works.
    const tooDeep = '{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1);
    const refused = await t.api.as(m.key).post('/v1/rewards', undefined, { rawBody: tooDeep });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('nested');
    expect((await t.api.as(m.key).post('/v1/rewards', choiceReward(100))).status).toBe(201);
  });
});
