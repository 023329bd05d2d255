import { DataSource } from 'typeorm';
import { RewardBackgroundJobs } from '@app/rewards';
import { connect, registerApp } from '../support/oauth';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { CatalogPicks, catalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';

/**
 * A reward's money trail (docs/rewards.md, Money trail): GET /v1/rewards/{id}/ledger answers every
 * ledger row of the reward and of its cards, oldest first, and totals for which held = captured +
 * released + remaining + pending cards' value, in every state a reward reaches.
 */
describe('GET /v1/rewards/{id}/ledger', () => {
  const clock = new TestClock();
  let t: TestApp;
  let worker: TestWorker | undefined;
  let dataSource: DataSource;
  let m: SeededMerchant;
  let picks: CatalogPicks;
  const recipient = () => new RecipientClient(t);
  const rewardOf = async (id: string) => {
    const res = await t.api.as(m.readKey).get(`/v1/rewards/${id}`);
    if (res.status !== 200) throw new Error(`GET reward ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.reward;
  };
  const sent: Record<string, string> = {};

  /** The ledger as answered, checked against the reward, its cards and the ledger table itself. */
  async function checkedLedger(id: string) {
    const res = await t.api.as(m.readKey).get(`/v1/rewards/${id}/ledger`);
    expect(res.status).toBe(200);
    const reward = await rewardOf(id);
    const pendingCents = reward.issuedCards.filter((c: any) => c.status === 'PENDING').reduce((n: number, c: any) => n + c.amountCents, 0);
    const ledger = res.body;
    expect({ id, held: ledger.heldCents }).toEqual({ id, held: ledger.capturedCents + ledger.releasedCents + reward.remainingValueCents + pendingCents });
    expect(ledger.heldCents).toBe(reward.faceValueCents);
    const ids = [reward.id, ...reward.issuedCards.map((c: any) => c.id)];
    const rows: { id: string }[] = await dataSource.query(
      `SELECT id FROM wallet_transactions WHERE account_id = $1 AND related_id = ANY($2) ORDER BY seq`,
      [m.accountId, ids],
    );
    expect(ledger.transactions.map((tx: any) => tx.id)).toEqual(rows.map((r) => r.id));
    const times = ledger.transactions.map((tx: any) => tx.createdAt);
    expect(times).toEqual([...times].sort());
    return { ledger, reward };
  }

  beforeAll(async () => {
    t = await startTestApp({ overrides: [clockOverride(clock)], env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    await fund(t, m, 500_000);
    picks = await catalogPicks(t, m.key);
    const api = t.api.as(m.key);
    const send = async (name: string, body: Record<string, unknown>) => {
      const res = await api.post('/v1/rewards', body);
      expect(res.status).toBe(201);
      sent[name] = res.body.reward.id;
      return res.body;
    };
    await send('sent', choiceReward(2_000));
    const opened = await send('opened', choiceReward(2_500));
    expect((await recipient().state(tokenOf(opened.redemptionUrl))).status).toBe(200);
    // Picked with no worker running: its card stays PENDING until the worker starts.
    const partial = await send('partial', choiceReward(picks.fixedUsd.valueCents + 1_000));
    expect((await recipient().pick(tokenOf(partial.redemptionUrl), { utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents })).status).toBe(201);
    const redeemed = await send('redeemed', choiceReward(picks.fixedUsd.valueCents));
    expect((await recipient().pick(tokenOf(redeemed.redemptionUrl), { utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents })).status).toBe(201);
    await send('canceled', choiceReward(3_000));
    expect((await api.post(`/v1/rewards/${sent.canceled}/cancel`)).status).toBe(200);
    await send('expired', choiceReward(1_500, { expiresAt: new Date(Date.now() + 60_000).toISOString() }));
    await send('fixed', fixedReward(picks.fixedUsd));
    await send('failed', fixedReward(picks.failingFixed));
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await t.close();
  });

  it('holds while cards are pending: the pending value closes the identity', async () => {
    const { ledger, reward } = await checkedLedger(sent.partial);
    expect(reward.status).toBe('PARTIALLY_REDEEMED');
    expect(ledger.transactions.map((tx: any) => tx.kind)).toEqual(['HOLD']);
    expect(ledger).toMatchObject({ capturedCents: 0, releasedCents: 0, convertedCents: 0 });
    for (const name of Object.keys(sent)) await checkedLedger(sent[name]);
  });

  it('in every state once cards settle: SENT, OPENED, PARTIALLY_REDEEMED, REDEEMED, CANCELED, EXPIRED, a FIXED card issued and one failed', async () => {
    worker = await startTestWorker(t);
    clock.advance(120_000);
    // The worker has just started on the rewards' e-mails: one that records its delivery at that moment holds the
    // reward's row, and the sweep passes it by (SKIP LOCKED) until the next run. Sweep until it is expired.
    await eventually(async () => {
      await worker!.app.get(RewardBackgroundJobs).expireDue();
      return (await rewardOf(sent.expired)).status === 'EXPIRED' || undefined;
    });
    const expected: Record<string, string> = {
      sent: 'SENT',
      opened: 'OPENED',
      partial: 'PARTIALLY_REDEEMED',
      redeemed: 'REDEEMED',
      canceled: 'CANCELED',
      expired: 'EXPIRED',
      fixed: 'REDEEMED',
    };
    for (const [name, status] of Object.entries(expected)) {
      await eventually(async () => ((await rewardOf(sent[name])).status === status ? true : undefined));
    }
    await eventually(async () => ((await rewardOf(sent.failed)).issuedCards.some((c: any) => c.status === 'FAILED') ? true : undefined));
    await eventually(async () => ((await rewardOf(sent.partial)).issuedCards.every((c: any) => c.status === 'ISSUED') ? true : undefined));
    const totals: Record<string, unknown> = {};
    for (const name of Object.keys(sent)) {
      const { ledger } = await checkedLedger(sent[name]);
      totals[name] = { kinds: ledger.transactions.map((tx: any) => tx.kind), captured: ledger.capturedCents, released: ledger.releasedCents };
    }
    const card = picks.fixedUsd.valueCents;
    expect(totals).toEqual({
      sent: { kinds: ['HOLD'], captured: 0, released: 0 },
      opened: { kinds: ['HOLD'], captured: 0, released: 0 },
      partial: { kinds: ['HOLD', 'CAPTURE'], captured: card, released: 0 },
      redeemed: { kinds: ['HOLD', 'CAPTURE'], captured: card, released: 0 },
      canceled: { kinds: ['HOLD', 'RELEASE'], captured: 0, released: 3_000 },
      expired: { kinds: ['HOLD', 'RELEASE'], captured: 0, released: 1_500 },
      fixed: { kinds: ['HOLD', 'CAPTURE'], captured: card, released: 0 },
      failed: { kinds: ['HOLD', 'RELEASE'], captured: 0, released: picks.failingFixed.valueCents },
    });
  }, 60_000);

  it('needs wallet:read beside rewards:read; another account’s reward or an unknown id is 404', async () => {
    const app = await registerApp(t, ['rewards:read', 'wallet:read']);
    const rewardsOnly = await connect(t, app, m, 'rewards:read');
    const refused = await t.api.as(rewardsOnly.access_token).get(`/v1/rewards/${sent.sent}/ledger`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="wallet:read"');
    const both = await connect(t, app, m, 'rewards:read wallet:read');
    expect((await t.api.as(both.access_token).get(`/v1/rewards/${sent.sent}/ledger`)).status).toBe(200);
    const other = await seedMerchant(t);
    expect((await t.api.as(other.readKey).get(`/v1/rewards/${sent.sent}/ledger`)).status).toBe(404);
    expect((await t.api.as(m.readKey).get('/v1/rewards/rw_unknown/ledger')).status).toBe(404);
  });
});
