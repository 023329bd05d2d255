import { DataSource } from 'typeorm';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { RecipientClient, splittablePair, tokenOf } from '../support/redemption';
import { choiceReward, startWithFundedMerchant } from '../support/rewards';
import { SeededMerchant, TestApp } from '../support/test-app';

/** A cancel that finds the whole value already in the recipient's cards has nothing to cancel. */
describe('cancel of a CHOICE reward whose value is all in cards', () => {
  let t: TestApp;
  let m: SeededMerchant;

  beforeAll(async () => {
    ({ t, m } = await startWithFundedMerchant(100_000));
  });
  afterAll(async () => {
    await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
    await t.close();
  });

  it('is 422, leaves the reward as it was, emits no reward.canceled and moves no money', async () => {
    const pair = await splittablePair(t, m.key, 5_000);
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000));
    const token = tokenOf(sent.body.redemptionUrl);
    const recipient = new RecipientClient(t);
    expect((await recipient.pick(token, { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents })).status).toBe(201);
    expect((await recipient.pick(token, { utid: pair.variable.utid, amountCents: 5_000 - pair.fixed.valueCents })).status).toBe(201);
    const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet;

    const cancel = await t.api.as(m.key).post(`/v1/rewards/${sent.body.reward.id}/cancel`);
    expect(cancel.status).toBe(422);
    expect(cancel.body).toMatchObject({ error: 'validation', message: expect.stringContaining('no value left') });
    const after = await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}`);
    expect(after.body.reward.status).toBe('PARTIALLY_REDEEMED');
    expect(after.body.reward.events.map((e: { type: string }) => e.type)).not.toContain('reward.canceled');
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet).toEqual(before);
  });

  it('a CHOICE reward with value left is still cancelled, returning only what is left', async () => {
    const pair = await splittablePair(t, m.key, 5_000);
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000));
    await new RecipientClient(t).pick(tokenOf(sent.body.redemptionUrl), { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents });
    const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
    const cancel = await t.api.as(m.key).post(`/v1/rewards/${sent.body.reward.id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.reward.status).toBe('CANCELED');
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents).toBe(before.availableCents + 5_000 - pair.fixed.valueCents);
  });
});
