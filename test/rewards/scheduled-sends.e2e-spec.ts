import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { SCHEDULED_DELIVERY_SWEEP } from '../../libs/rewards/src/reward-background.jobs';
import { signedIn } from '../support/dashboard';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';
import { WebhookReceiver } from '../support/webhook-receiver';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Scheduled sends (docs/delivery.md, Scheduled sends): `deliverAt`, held at once, delivered once by the due-sender. */
describe('scheduled sends', () => {
  const smtp = new SmtpSink();
  const clock = new TestClock();
  let receiver: WebhookReceiver;
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let db: DataSource;
  let recipientSide: RecipientClient;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: { SMTP_URL: await smtp.start(), WEBHOOK_RETRY_BASE_MS: '50' }, overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
    recipientSide = new RecipientClient(t);
    m = await seedMerchant(t);
    await fund(t, m, 1_000_000);
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url('/scheduled'), events: ['reward.created', 'reward.sent'] });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await expectLedgerInvariants(db, m.accountId);
    await worker?.close();
    await t?.close();
    await smtp.stop();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });
  afterEach(() => clock.reset());

  const api = () => t.api.as(m.key);
  const reward = async (id: string) => (await api().get(`/v1/rewards/${id}`)).body.reward;
  const available = async () => (await api().get('/v1/wallet')).body.wallet.availableCents as number;
  const deliverDue = () => worker.app.get(Sweepers).run(SCHEDULED_DELIVERY_SWEEP);
  const mailsTo = (email: string) => smtp.messages.filter((mail) => mail.to.includes(email));
  const hooksOf = (id: string, type: string) => receiver.at('/scheduled').filter((r) => r.json.data.id === id && r.json.type === type);
  const inMinutes = (minutes: number) => new Date(clock.now().getTime() + minutes * MINUTE).toISOString();

  it('CHOICE: held at create, CREATED and SCHEDULED; no e-mail, the link says when; pick and resend 422; at deliverAt one e-mail and reward.sent', async () => {
    clock.freeze();
    const to = recipient();
    const before = await available();
    const deliverAt = inMinutes(30);
    const res = await api().post('/v1/rewards', choiceReward(2_500, { recipient: to, deliverAt }));
    expect(res.status).toBe(201);
    const id: string = res.body.reward.id;
    expect(res.body.reward).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED', deliverAt, sentAt: null, remainingValueCents: 2_500 });
    expect(res.body.reward.events.map((e: { type: string }) => e.type)).toEqual(['reward.created']);
    expect(await available()).toBe(before - 2_500);
    expect((await db.query(`SELECT 1 FROM mail_jobs WHERE reward_id = $1`, [id])).length).toBe(0);
    // Listed among CREATED rewards.
    const listed = await api().get('/v1/rewards?status=CREATED&page_size=100');
    expect(listed.body.rewards.map((r: { id: string }) => r.id)).toContain(id);

    // The link before delivery: when it opens, no cards, no picks; viewing it opens nothing.
    const token = tokenOf(res.body.redemptionUrl);
    const state = await recipientSide.state(token);
    expect(state.status).toBe(200);
    expect(state.body.reward).toMatchObject({ status: 'CREATED', canPick: false, availableAt: deliverAt });
    expect(state.body.cards).toEqual([]);
    expect(state.body.brands).toEqual([]);
    const html = await recipientSide.page(token);
    expect(html.status).toBe(200);
    expect(html.body).toContain('This reward can be used from');
    expect((await reward(id)).openedAt).toBeNull();
    const picks = await catalogPicks(t, m.key);
    const pick = await recipientSide.pick(token, { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.minCents! });
    expect(pick.status).toBe(422);
    const resend = await api().post(`/v1/rewards/${id}/resend`);
    expect(resend.status).toBe(422);
    expect(resend.body.message).toContain('scheduled');

    // A minute early: the sweep leaves it.
    clock.advance(29 * MINUTE);
    await deliverDue();
    expect(await reward(id)).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED' });
    expect(mailsTo(to.email)).toHaveLength(0);

    // Its time: SENT, one e-mail, one reward.sent; a second sweep changes nothing.
    clock.advance(MINUTE);
    await deliverDue();
    const sent = await reward(id);
    expect(sent).toMatchObject({ status: 'SENT', deliverAt, sentAt: clock.now().toISOString() });
    expect(sent.events.map((e: { type: string }) => e.type)).toEqual(['reward.created', 'reward.sent']);
    await smtp.waitFor((mail) => mail.to.includes(to.email));
    await deliverDue();
    const [hook] = await eventually(async () => (hooksOf(id, 'reward.sent').length ? hooksOf(id, 'reward.sent') : undefined));
    expect(hook.json).toMatchObject({ type: 'reward.sent', data: { id, status: 'SENT' } });
    await eventually(async () => ((await reward(id)).emailStatus === 'DELIVERED' ? true : undefined));
    expect(mailsTo(to.email)).toHaveLength(1);
    expect(hooksOf(id, 'reward.sent')).toHaveLength(1);
    expect(hooksOf(id, 'reward.created')).toHaveLength(1);
    expect(await available()).toBe(before - 2_500);

    // Now an ordinary reward: the page offers picks.
    const after = await recipientSide.state(token);
    expect(after.body.reward.canPick).toBe(true);
    expect(after.body.reward.availableAt).toBeUndefined();
  });

  it('FIXED: the card is ordered only at deliverAt', async () => {
    const picks = await catalogPicks(t, m.key);
    const to = recipient();
    const res = await api().post('/v1/rewards', fixedReward(picks.fixedUsd, { recipient: to, deliverAt: inMinutes(10) }));
    expect(res.status).toBe(201);
    const id: string = res.body.reward.id;
    expect(res.body.reward).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED' });
    // The issuance sweep leaves the held card alone, however old.
    await db.query(`UPDATE reward_cards SET created_at = now() - interval '1 hour' WHERE reward_id = $1`, [id]);
    await worker.app.get(Sweepers).run('reward-job-sweeper');
    const [card] = await db.query(`SELECT status, supplier_requested_at FROM reward_cards WHERE reward_id = $1`, [id]);
    expect(card).toMatchObject({ status: 'PENDING', supplier_requested_at: null });
    expect((await recipientSide.state(tokenOf(res.body.redemptionUrl))).body).toMatchObject({ cards: [], reward: { brandName: null } });

    clock.advance(10 * MINUTE);
    await deliverDue();
    await eventually(async () => ((await reward(id)).status === 'REDEEMED' ? true : undefined));
    await smtp.waitFor((mail) => mail.to.includes(to.email));
    expect(mailsTo(to.email)).toHaveLength(1);
  });

  it('with a phone: the text waits for deliverAt too, then goes once with the e-mail', async () => {
    const to = recipient({ phone: '+14155550123' });
    const res = await api().post('/v1/rewards', choiceReward(1_500, { recipient: to, deliverAt: inMinutes(5) }));
    expect(res.status).toBe(201);
    const id: string = res.body.reward.id;
    expect(res.body.reward).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED', smsStatus: 'QUEUED' });
    const jobs = () => db.query(`SELECT channel FROM mail_jobs WHERE reward_id = $1 ORDER BY channel`, [id]);
    expect(await jobs()).toEqual([]);
    await deliverDue();
    expect(await jobs()).toEqual([]);

    clock.advance(5 * MINUTE);
    await deliverDue();
    expect(await jobs()).toEqual([{ channel: 'email' }, { channel: 'sms' }]);
    await eventually(async () => {
      const now = await reward(id);
      return now.smsStatus === 'SENT' && now.emailStatus === 'DELIVERED' ? now : undefined;
    });
    await deliverDue();
    expect(await jobs()).toHaveLength(2);
  });

  it('cancel before delivery returns the whole value; nothing is ever sent', async () => {
    const picks = await catalogPicks(t, m.key);
    const before = await available();
    const choice = await api().post('/v1/rewards', choiceReward(4_000, { deliverAt: inMinutes(5) }));
    const fixed = await api().post('/v1/rewards', fixedReward(picks.fixedUsd, { deliverAt: inMinutes(5) }));
    expect(await available()).toBe(before - 4_000 - picks.fixedUsd.valueCents);
    for (const res of [choice, fixed]) {
      const cancel = await api().post(`/v1/rewards/${res.body.reward.id}/cancel`);
      expect(cancel.status).toBe(200);
      expect(cancel.body.reward).toMatchObject({ status: 'CANCELED', remainingValueCents: 0 });
    }
    expect(await available()).toBe(before);
    clock.advance(6 * MINUTE);
    await deliverDue();
    for (const res of [choice, fixed]) {
      expect((await reward(res.body.reward.id)).status).toBe('CANCELED');
      expect(mailsTo(res.body.reward.recipientEmail)).toHaveLength(0);
      expect((await db.query(`SELECT 1 FROM mail_jobs WHERE reward_id = $1`, [res.body.reward.id])).length).toBe(0);
    }
  });

  it('correcting the address before delivery sends nothing then; the e-mail goes to the new address at deliverAt', async () => {
    const wrong = recipient();
    const right = recipient();
    const res = await api().post('/v1/rewards', choiceReward(1_500, { recipient: wrong, deliverAt: inMinutes(3) }));
    const id: string = res.body.reward.id;
    const patched = await api().patch(`/v1/rewards/${id}`, { recipient: { email: right.email } });
    expect(patched.status).toBe(200);
    expect(patched.body.reward).toMatchObject({ recipientEmail: right.email, status: 'CREATED', emailStatus: 'SCHEDULED' });
    expect((await db.query(`SELECT 1 FROM mail_jobs WHERE reward_id = $1`, [id])).length).toBe(0);
    clock.advance(3 * MINUTE);
    await deliverDue();
    await smtp.waitFor((mail) => mail.to.includes(right.email));
    expect(mailsTo(wrong.email)).toHaveLength(0);
    expect(mailsTo(right.email)).toHaveLength(1);
  });

  it('bulk items take deliverAt each; a bad one fails alone', async () => {
    const before = await available();
    const res = await api().post('/v1/rewards/bulk', {
      rewards: [choiceReward(1_000, { deliverAt: inMinutes(2) }), choiceReward(1_000, { deliverAt: inMinutes(0.5) }), choiceReward(1_000)],
    });
    expect(res.status).toBe(207);
    expect(res.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false, true]);
    expect(res.body.results[1].error).toContain('deliverAt');
    expect(await available()).toBe(before - 2_000);
    const scheduled = await reward(res.body.results[0].rewardId);
    expect(scheduled).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED' });
    expect(await reward(res.body.results[2].rewardId)).toMatchObject({ status: 'SENT', deliverAt: null });
    clock.advance(2 * MINUTE);
    await deliverDue();
    expect(await reward(scheduled.id)).toMatchObject({ status: 'SENT' });
  });

  it('bad deliverAt: past, under 60 s ahead, over 365 days, expiresAt not later, not a timestamp: 400, nothing held or sent', async () => {
    clock.freeze();
    const before = await available();
    const ahead = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ deliverAt: ahead(-MINUTE) }, 'deliverAt'],
      [{ deliverAt: ahead(59_000) }, 'deliverAt'],
      [{ deliverAt: ahead(366 * DAY) }, 'deliverAt'],
      [{ deliverAt: ahead(10 * MINUTE), expiresAt: ahead(10 * MINUTE) }, 'expiresAt'],
      [{ deliverAt: ahead(10 * MINUTE), expiresAt: ahead(5 * MINUTE) }, 'expiresAt'],
      [{ deliverAt: 'tomorrow' }, 'deliverAt'],
      [{ deliverAt: '2030-01-01T12:00:00' }, 'deliverAt'],
    ];
    for (const [extra, path] of cases) {
      const to = recipient();
      const res = await api().post('/v1/rewards', choiceReward(1_000, { recipient: to, ...extra }));
      expect(res.status).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(mailsTo(to.email)).toHaveLength(0);
    }
    // The edges are accepted: exactly 60 s and exactly 365 days ahead.
    for (const ms of [MINUTE, 365 * DAY]) {
      const res = await api().post('/v1/rewards', choiceReward(100, { deliverAt: ahead(ms) }));
      expect(res.status).toBe(201);
      expect((await api().post(`/v1/rewards/${res.body.reward.id}/cancel`)).status).toBe(200);
    }
    expect(await available()).toBe(before);
  });

  it('a retry with the same Idempotency-Key after deliverAt has passed replays the stored 201, not a 400 for the time', async () => {
    clock.freeze();
    const before = await available();
    const body = choiceReward(700, { recipient: recipient(), deliverAt: inMinutes(2) });
    const headers = { 'idempotency-key': `scheduled-retry-${Date.now()}` };
    const first = await api().post('/v1/rewards', body, { headers });
    expect(first.status).toBe(201);
    clock.advance(5 * MINUTE);
    // Sent without the key now, the same body is refused: its deliverAt is past.
    expect((await api().post('/v1/rewards', body)).status).toBe(400);
    const retry = await api().post('/v1/rewards', body, { headers });
    expect(retry.status).toBe(200);
    expect(retry.body.reward.id).toBe(first.body.reward.id);
    expect(await available()).toBe(before - 700);
    expect((await api().post(`/v1/rewards/${first.body.reward.id}/cancel`)).status).toBe(200);
  });

  it('waiting for approval and scheduled: sent at the later of approval and deliverAt', async () => {
    const a = await seedMerchant(t);
    await fund(t, a, 100_000);
    expect((await t.api.as(a.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: 10_000 } })).status).toBe(200);
    const owner = await signedIn(t, { email: a.email, password: a.password });

    // Approved before deliverAt: stays CREATED until deliverAt.
    const early = await t.api.as(a.key).post('/v1/rewards', choiceReward(10_000, { deliverAt: inMinutes(20) }));
    expect(early.body.reward).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED', approval: { status: 'PENDING' } });
    expect((await owner.post(`/dashboard/api/approvals/${early.body.reward.id}/approve`)).body.reward).toMatchObject({
      status: 'CREATED',
      approval: { status: 'APPROVED' },
    });
    await deliverDue();
    expect(mailsTo(early.body.reward.recipientEmail)).toHaveLength(0);
    expect((await t.api.as(a.key).post(`/v1/rewards/${early.body.reward.id}/resend`)).status).toBe(422);

    // deliverAt passed while waiting: the sweep leaves it; approval sends it at once.
    const late = await t.api.as(a.key).post('/v1/rewards', choiceReward(10_000, { deliverAt: inMinutes(5) }));
    clock.advance(20 * MINUTE);
    await deliverDue();
    expect((await t.api.as(a.key).get(`/v1/rewards/${late.body.reward.id}`)).body.reward).toMatchObject({ status: 'CREATED', approval: { status: 'PENDING' } });
    expect((await t.api.as(a.key).get(`/v1/rewards/${early.body.reward.id}`)).body.reward).toMatchObject({ status: 'SENT' });
    const approved = await owner.post(`/dashboard/api/approvals/${late.body.reward.id}/approve`);
    expect(approved.body.reward).toMatchObject({ status: 'SENT', emailStatus: 'QUEUED' });
    await smtp.waitFor((mail) => mail.to.includes(early.body.reward.recipientEmail));
    await smtp.waitFor((mail) => mail.to.includes(late.body.reward.recipientEmail));
    await expectLedgerInvariants(db, a.accountId);
  });
});
