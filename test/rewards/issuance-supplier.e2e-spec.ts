import { DataSource } from 'typeorm';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier, IssueCardRequest, SupplierCard, SupplierError, SupplierGate } from '@app/catalog';
import { RedisClient } from '@app/core';
import { CardIssuanceService, RewardLifecycle } from '@app/rewards';
import { IssuanceLease } from '../../libs/rewards/src/lifecycle/issuance-lease';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, splittablePair, tokenOf } from '../support/redemption';
import { catalogPicks, CatalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The sandbox behind a switch: each call can be held until the test lets it go, or answered with a
 * transient error, and every call is logged with when it reached the supplier.
 */
class SupplierDouble implements GiftCardSupplier {
  readonly calls: { reference: string; at: number }[] = [];
  mode: 'pass' | 'hold' | 'down' = 'pass';
  /** Answers the next call with this error instead (once). */
  nextError: SupplierError | null = null;
  private readonly held: (() => void)[] = [];

  constructor(private readonly real: GiftCardSupplier) {}

  listCatalog() {
    return this.real.listCatalog();
  }

  getCard(reference: string) {
    return this.real.getCard(reference);
  }

  async issueCard(request: IssueCardRequest): Promise<SupplierCard> {
    this.calls.push({ reference: request.reference, at: Date.now() });
    const error = this.nextError;
    this.nextError = null;
    if (error) throw error;
    if (this.mode === 'down') throw new SupplierError('503 Service Unavailable', false);
    if (this.mode === 'hold') await new Promise<void>((resolve) => this.held.push(resolve));
    return this.real.issueCard(request);
  }

  releaseAll(): void {
    for (const release of this.held.splice(0)) release();
  }
}

describe('card issuance calls the supplier with nothing held, and respects its health', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let picks: CatalogPicks;
  let dataSource: DataSource;
  let redis: RedisClient;
  let supplier: SupplierDouble;

  const issuanceWith = (gate: SupplierGate) => new CardIssuanceService(supplier, gate, t.app.get(IssuanceLease), t.app.get(RewardLifecycle));
  const gate = (options: ConstructorParameters<typeof SupplierGate>[2] = {}) => new SupplierGate(redis, t.config, options);
  const sendFixed = async (item = picks.fixedUsd) => {
    const res = await t.api.as(m.key).post('/v1/rewards', fixedReward(item));
    expect(res.status).toBe(201);
    return { rewardId: res.body.reward.id as string, cardId: res.body.reward.issuedCards[0].id as string };
  };
  const cardStatus = async (cardId: string) =>
    (await dataSource.query(`SELECT status FROM reward_cards WHERE id = $1`, [cardId]))[0].status as string;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    redis = t.app.get(RedisClient);
    m = await seedMerchant(t);
    await fund(t, m, 1_000_000);
    picks = await catalogPicks(t, m.key);
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    supplier = new SupplierDouble(t.app.get<GiftCardSupplier>(GIFT_CARD_SUPPLIER));
    const keys = await redis.keys(redis.key('supplier', '*'));
    if (keys.length) await redis.del(...keys);
  });

  it('a cancel of a FIXED reward whose card is at the supplier answers 422 at once; the card then issues, with no refund', async () => {
    supplier.mode = 'hold';
    const { rewardId, cardId } = await sendFixed();
    const issuing = issuanceWith(gate()).issue(cardId);
    await eventually(async () => supplier.calls.length === 1 || undefined);

    // The supplier has not answered: with a lock held across the call this would wait, then 503.
    const cancel = await t.api.as(m.key).post(`/v1/rewards/${rewardId}/cancel`);
    const releasedAfterCancel = supplier.calls.length === 1;
    supplier.releaseAll();
    expect(cancel.status).toBe(422);
    expect(cancel.body).toMatchObject({ error: 'validation', message: expect.stringMatching(/being issued/) });
    expect(releasedAfterCancel).toBe(true);

    expect(await issuing).toBe('issued');
    const reward = (await t.api.as(m.key).get(`/v1/rewards/${rewardId}`)).body.reward;
    expect([reward.status, reward.issuedCards[0].status]).toEqual(['REDEEMED', 'ISSUED']);
    const releases = await dataSource.query(`SELECT 1 FROM wallet_transactions WHERE related_id = $1 AND kind = 'RELEASE'`, [cardId]);
    expect(releases).toHaveLength(0);
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('picks of one CHOICE reward are accepted while the cards picked before are still at the supplier', async () => {
    const pair = await splittablePair(t, m.key, 20_000);
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(pair.fixed.valueCents * 3 + 20_000));
    const token = tokenOf(sent.body.redemptionUrl);
    const recipient = new RecipientClient(t);
    supplier.mode = 'hold';
    const issuance = issuanceWith(gate());

    const issuing: Promise<unknown>[] = [];
    for (let n = 1; n <= 3; n++) {
      const picked = await recipient.pick(token, { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents });
      expect(picked.status).toBe(201);
      issuing.push(issuance.issue(picked.body.card.id));
      // Every card picked so far is at the supplier, unanswered, when the next pick is made.
      await eventually(async () => supplier.calls.length === n || undefined);
    }
    const last = await recipient.pick(token, { utid: pair.variable.utid, amountCents: pair.variable.minCents });
    expect(last.status).toBe(201);
    expect(supplier.calls).toHaveLength(3);

    supplier.releaseAll();
    expect(await Promise.all(issuing)).toEqual(['issued', 'issued', 'issued']);
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('a 429 with Retry-After holds every worker back until then; the card is retried with its reference and issued once', async () => {
    const first = await sendFixed();
    const second = await sendFixed();
    supplier.nextError = new SupplierError('429 Too Many Requests', false, 1_500);
    const issuance = issuanceWith(gate());
    await expect(issuance.issue(first.cardId)).rejects.toThrow('429');
    const limitedAt = supplier.calls[0].at;
    expect(await cardStatus(first.cardId)).toBe('PENDING');

    // Another worker (its own gate, the same Redis) sees the back-off too.
    const elsewhere = await gate().turn();
    expect(elsewhere).toMatchObject({ go: false });
    expect(elsewhere.go === false && elsewhere.waitMs).toBeLessThanOrEqual(1_500);

    expect(await issuance.issue(second.cardId)).toBe('issued');
    expect(supplier.calls[1].reference).toBe(second.cardId);
    expect(supplier.calls[1].at - limitedAt).toBeGreaterThanOrEqual(1_400);

    expect(await issuance.issue(first.cardId)).toBe('issued');
    expect(supplier.calls.map((c) => c.reference)).toEqual([first.cardId, second.cardId, first.cardId]);
    await expectLedgerInvariants(dataSource, m.accountId);
  });

  it('repeated failures open the circuit: cards stay PENDING, readiness and metrics say so, one probe at a time, then it closes', async () => {
    const health = async () => ({ body: (await (await fetch(`${t.baseUrl}/health/ready`)).json()) as { supplier: string } });
    const gauge = async () => /supplier_circuit_state\{supplier="sandbox"\} (\d)/.exec(await (await fetch(`${t.baseUrl}/metrics`)).text())?.[1];
    const circuit = gate({ failureThreshold: 3, openMs: 1_500 });
    const issuance = issuanceWith(circuit);
    const cards = [await sendFixed(), await sendFixed(), await sendFixed()];
    expect((await health()).body.supplier).toBe('closed');
    expect(await gauge()).toBe('0');

    supplier.mode = 'down';
    for (const { cardId } of cards) await expect(issuance.issue(cardId)).rejects.toThrow('503');
    expect(await circuit.state()).toBe('open');
    const ready = await fetch(`${t.baseUrl}/health/ready`);
    expect(ready.status).toBe(200); // the API still serves; only issuance waits
    expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' }, supplier: 'open', fx: expect.objectContaining({ source: 'sandbox' }) });
    expect(await gauge()).toBe('2');
    for (const { cardId } of cards) expect(await cardStatus(cardId)).toBe('PENDING');

    // While open nobody calls; once it half-opens, one probe goes through, fails, and opens it again.
    await expect(issuance.issue(cards[0].cardId)).rejects.toThrow('503');
    expect(supplier.calls).toHaveLength(4);
    expect(await circuit.state()).toBe('open');

    // The supplier is back: the next probe succeeds and closes the circuit; every card issues.
    supplier.mode = 'pass';
    expect(await issuance.issue(cards[0].cardId)).toBe('issued');
    expect(await circuit.state()).toBe('closed');
    expect((await health()).body.supplier).toBe('closed');
    for (const { cardId } of cards.slice(1)) expect(await issuance.issue(cardId)).toBe('issued');
    const releases = await dataSource.query(
      `SELECT 1 FROM wallet_transactions WHERE related_id = ANY($1) AND kind = 'RELEASE'`,
      [cards.map((c) => c.cardId)],
    );
    expect(releases).toHaveLength(0);
    await expectLedgerInvariants(dataSource, m.accountId);
  });
});
