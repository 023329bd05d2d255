import { DataSource } from 'typeorm';
import { RewardBackgroundJobs } from '@app/rewards';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, tokenOf } from '../support/redemption';
import { catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';
import { WebhookReceiver } from '../support/webhook-receiver';

const BASE_MS = 60_000;

describe('delivery of the reward e-mail: bounces, retries, emailStatus and correcting the address', () => {
  const smtp = new SmtpSink();
  const clock = new TestClock();
  let receiver: WebhookReceiver;
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let dataSource: DataSource;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    // EMAIL_RETRY_BASE_MS stays at its default (60 s): the test moves the clock instead of waiting.
    t = await startTestApp({
      env: { SMTP_URL: await smtp.start(), EMAIL_MAX_ATTEMPTS: '3', WEBHOOK_RETRY_BASE_MS: '50' },
      overrides: [clockOverride(clock)],
    });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url('/hooks'), events: ['reward.delivery_failed'] });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await expectLedgerInvariants(dataSource, m.accountId);
    await worker?.close();
    await t.close();
    await smtp.stop();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });
  afterEach(() => clock.reset());

  const api = () => t.api.as(m.key);
  const reward = async (id: string) => (await api().get(`/v1/rewards/${id}`)).body.reward;
  const mailJob = async (rewardId: string) =>
    (await dataSource.query(`SELECT status, attempts, next_attempt_at, leased_until FROM mail_jobs WHERE reward_id = $1 ORDER BY created_at DESC LIMIT 1`, [rewardId]))[0];
  /** Runs the worker's sweep as its 5-s timer would: it enqueues the e-mails whose retry is due. */
  const sweep = () => worker.app.get(RewardBackgroundJobs).enqueueOrphans();
  const hooksFor = (rewardId: string) => receiver.at('/hooks').filter((r) => r.json.data.id === rewardId);

  it('an accepted e-mail: emailStatus goes from QUEUED to DELIVERED', async () => {
    const to = recipient();
    const res = await api().post('/v1/rewards', choiceReward(1_000, { recipient: to }));
    expect(res.body.reward.emailStatus).toBe('QUEUED');
    await smtp.waitFor((mail) => mail.to.includes(to.email));
    await eventually(async () => (await reward(res.body.reward.id)).emailStatus === 'DELIVERED');
  });

  it('a permanent refusal (550) fails the e-mail at once: emailStatus FAILED, reward.delivery_failed on the timeline and as a webhook with the reply', async () => {
    const to = recipient();
    smtp.refuseRecipient(to.email, { code: 550, text: '5.1.1 <mailbox> does not exist here' });
    const res = await api().post('/v1/rewards', choiceReward(2_000, { recipient: to }));
    const id = res.body.reward.id;
    const failed = await eventually(async () => {
      const r = await reward(id);
      return r.emailStatus === 'FAILED' ? r : undefined;
    });
    expect(smtp.refused.filter((r) => r.to === to.email)).toHaveLength(1);
    expect(await mailJob(id)).toMatchObject({ status: 'FAILED', attempts: 1 });
    const event = failed.events.find((e: { type: string }) => e.type === 'reward.delivery_failed');
    expect(event.metadata).toEqual({ channel: 'email', reason: '550 5.1.1 <mailbox> does not exist here' });
    // Still a reward like any other: SENT, its value held.
    expect(failed).toMatchObject({ status: 'SENT', remainingValueCents: 2_000 });

    const [hook] = await eventually(async () => (hooksFor(id).length ? hooksFor(id) : undefined));
    expect(hook.json).toMatchObject({
      id: event.id,
      type: 'reward.delivery_failed',
      data: { id, status: 'SENT', valueCents: 2_000, currency: 'USD', channel: 'email', reason: '550 5.1.1 <mailbox> does not exist here' },
    });
  });

  it('a temporary refusal (450) is retried after EMAIL_RETRY_BASE_MS, then twice that, on the clock; then delivered', async () => {
    clock.freeze();
    const to = recipient();
    smtp.refuseRecipient(to.email, { code: 450, text: '4.2.1 Mailbox busy, try again later', times: 2 });
    const res = await api().post('/v1/rewards', choiceReward(1_500, { recipient: to }));
    const id = res.body.reward.id;
    const start = clock.now().getTime();

    const first = await eventually(async () => {
      const job = await mailJob(id);
      return job.attempts === 1 && job.next_attempt_at && !job.leased_until ? job : undefined;
    });
    expect(first.status).toBe('PENDING');
    expect(new Date(first.next_attempt_at).getTime()).toBe(start + BASE_MS);
    expect((await reward(id)).emailStatus).toBe('QUEUED');

    // Not due yet: the sweep leaves it alone.
    clock.advance(BASE_MS - 1_000);
    await sweep();
    expect((await mailJob(id)).attempts).toBe(1);

    clock.advance(1_000);
    await sweep();
    const second = await eventually(async () => {
      const job = await mailJob(id);
      return job.attempts === 2 && !job.leased_until ? job : undefined;
    });
    expect(new Date(second.next_attempt_at).getTime()).toBe(start + BASE_MS + 2 * BASE_MS);

    clock.advance(2 * BASE_MS);
    await sweep();
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email));
    expect(mail.text).toContain(res.body.redemptionUrl);
    await eventually(async () => (await reward(id)).emailStatus === 'DELIVERED');
    expect(await mailJob(id)).toMatchObject({ status: 'SENT', attempts: 3 });
    expect(smtp.refused.filter((r) => r.to === to.email)).toHaveLength(2);
    expect(hooksFor(id)).toEqual([]);
  });

  it('a refusal that stays temporary fails after EMAIL_MAX_ATTEMPTS attempts, with reward.delivery_failed', async () => {
    clock.freeze();
    const to = recipient();
    smtp.refuseRecipient(to.email, { code: 421, text: '4.7.0 Try again later' });
    const res = await api().post('/v1/rewards', choiceReward(1_200, { recipient: to }));
    const id = res.body.reward.id;
    for (let attempt = 1; attempt <= 2; attempt++) {
      await eventually(async () => {
        const job = await mailJob(id);
        return job.attempts === attempt && !job.leased_until && job.status === 'PENDING';
      });
      clock.advance(BASE_MS * 2 ** (attempt - 1));
      await sweep();
    }
    const failed = await eventually(async () => {
      const r = await reward(id);
      return r.emailStatus === 'FAILED' ? r : undefined;
    });
    expect(await mailJob(id)).toMatchObject({ status: 'FAILED', attempts: 3 });
    expect(failed.events.find((e: { type: string }) => e.type === 'reward.delivery_failed').metadata).toEqual({
      channel: 'email',
      reason: '421 4.7.0 Try again later',
    });
    await eventually(async () => hooksFor(id).length === 1);
  });

  it('PATCH corrects a bounced address: the e-mail goes to the new one with the same link, and is DELIVERED', async () => {
    const wrong = recipient({ email: `wrong-${Date.now()}@example.test` });
    smtp.refuseRecipient(wrong.email);
    const picks = await catalogPicks(t, m.key);
    const res = await api().post('/v1/rewards', fixedReward(picks.fixedUsd, { recipient: wrong }));
    const id = res.body.reward.id;
    await eventually(async () => (await reward(id)).emailStatus === 'FAILED');

    const right = recipient().email;
    // A reader cannot, a bad address is 400, an unknown reward 404.
    expect((await t.api.as(m.readKey).patch(`/v1/rewards/${id}`, { recipient: { email: right } })).status).toBe(403);
    expect((await api().patch(`/v1/rewards/${id}`, { recipient: { email: 'not an address' } })).status).toBe(400);
    expect((await api().patch(`/v1/rewards/${id}`, {})).status).toBe(400);
    expect((await api().patch('/v1/rewards/rw_00000000000000000000nope', { recipient: { email: right } })).status).toBe(404);

    const patched = await api().patch(`/v1/rewards/${id}`, { recipient: { email: right } });
    expect(patched.status).toBe(200);
    expect(patched.body.reward).toMatchObject({ id, recipientEmail: right, emailStatus: 'QUEUED' });
    const corrected = patched.body.reward.events.find((e: { type: string }) => e.type === 'reward.recipient_corrected');
    expect(corrected.metadata).toEqual({ channel: 'email', from: wrong.email, to: right });
    const [audited] = await dataSource.query(`SELECT actor_type, metadata FROM audit_log WHERE action = 'reward.recipient_corrected' AND target_id = $1`, [id]);
    expect(audited).toEqual({ actor_type: 'api_key', metadata: { from: wrong.email, to: right } });
    const mail = await smtp.waitFor((mail) => mail.to.includes(right));
    expect(mail.text).toContain(res.body.redemptionUrl);
    await eventually(async () => (await reward(id)).emailStatus === 'DELIVERED');
  });

  it('PATCH is 422 once the reward was opened, or when it has no value left', async () => {
    const opened = await api().post('/v1/rewards', choiceReward(1_000));
    await new RecipientClient(t).page(tokenOf(opened.body.redemptionUrl));
    const afterOpen = await api().patch(`/v1/rewards/${opened.body.reward.id}`, { recipient: { email: recipient().email } });
    expect(afterOpen.status).toBe(422);

    const canceled = await api().post('/v1/rewards', choiceReward(1_000));
    expect((await api().post(`/v1/rewards/${canceled.body.reward.id}/cancel`)).status).toBe(200);
    const afterCancel = await api().patch(`/v1/rewards/${canceled.body.reward.id}`, { recipient: { email: recipient().email } });
    expect(afterCancel.status).toBe(422);
    // Nothing changed.
    expect((await reward(canceled.body.reward.id)).recipientEmail).toBe(canceled.body.reward.recipientEmail);
  });
});
