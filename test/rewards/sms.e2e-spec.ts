import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RewardBackgroundJobs } from '@app/rewards';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';
import { TwilioDouble } from '../support/twilio-double';
import { WebhookReceiver } from '../support/webhook-receiver';

const BASE_MS = 60_000;
let phones = 0;
/** A fresh E.164 number per send, so each test reads only its own texts. */
const phone = () => `+1415555${String(1000 + (phones += 1)).padStart(4, '0')}`;

describe('the reward text message (SMS): docs/delivery.md, SMS', () => {
  describe('SMS_PROVIDER=outbox (the default)', () => {
    let dir: string;
    let t: TestApp;
    let worker: TestWorker;
    let m: SeededMerchant;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sms-outbox-'));
      t = await startTestApp({ env: { SMS_PROVIDER: 'outbox', SMS_OUTBOX_DIR: dir } });
      worker = await startTestWorker(t);
      m = await seedMerchant(t, { name: 'Acme Inc' });
      await fund(t, m, 10_000);
    });
    afterAll(async () => {
      await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
      await worker?.close();
      await t.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('writes each text as a JSON file {to, body, createdAt} with the sender and the link, in the recipient’s language', async () => {
      const to = phone();
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500, { recipient: recipient({ phone: to, language: 'fr' }) }));
      expect(res.status).toBe(201);
      expect(res.body.reward).toMatchObject({ recipientPhone: to, smsStatus: 'QUEUED' });
      const [file] = await eventually(async () => {
        // A text being written is under a hidden name until it is whole (docs/delivery.md, SMS).
        const files = (await readdir(dir)).filter((name) => name.endsWith('.json'));
        return files.length ? files : undefined;
      });
      const text = JSON.parse(await readFile(join(dir, file), 'utf8'));
      expect(Object.keys(text).sort()).toEqual(['body', 'createdAt', 'to']);
      expect(text.to).toBe(to);
      expect(text.body).toBe(`Acme Inc vous a envoyé une récompense de 25,00\u00a0$US : ${res.body.redemptionUrl}`);
      expect(new Date(text.createdAt).toISOString()).toBe(text.createdAt);
      await eventually(async () => (await t.api.as(m.key).get(`/v1/rewards/${res.body.reward.id}`)).body.reward.smsStatus === 'SENT');
    });

    it('without a phone: no text, smsStatus null', async () => {
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(500));
      expect(res.body.reward).toMatchObject({ recipientPhone: null, smsStatus: null });
      const jobs = await t.app.get(DataSource).query(`SELECT channel FROM mail_jobs WHERE reward_id = $1`, [res.body.reward.id]);
      expect(jobs).toEqual([{ channel: 'email' }]);
    });

    it('a phone that is not E.164 is 400 in the error shape and holds nothing; in a bulk it fails its item', async () => {
      const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
      for (const bad of ['4155550123', '+1 415 555 0123', '+0123456', '+1415555012345678', 'phone', '', 14155550123]) {
        const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { recipient: recipient({ phone: bad }) }));
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('bad_request');
        expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('recipient.phone');
      }
      expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet).toEqual(before);
      const bulk = await t.api.as(m.key).post('/v1/rewards/bulk', {
        rewards: [choiceReward(1_000, { recipient: recipient({ phone: '555-0123' }) }), choiceReward(1_000, { recipient: recipient({ phone: phone() }) })],
      });
      expect(bulk.status).toBe(207);
      expect(bulk.body.results[0]).toMatchObject({ ok: false, error: expect.stringMatching(/^bad_request: .*phone/) });
      expect(bulk.body.results[1].ok).toBe(true);
      const [row] = await t.app.get(DataSource).query(`SELECT sms_status FROM rewards WHERE id = $1`, [bulk.body.results[1].rewardId]);
      expect(row.sms_status).not.toBeNull();
    });
  });

  describe('SMS_PROVIDER=twilio, against a local double of its Messages API', () => {
    const twilio = new TwilioDouble();
    const smtp = new SmtpSink();
    const clock = new TestClock();
    let receiver: WebhookReceiver;
    let t: TestApp;
    let worker: TestWorker;
    let m: SeededMerchant;
    let dataSource: DataSource;

    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      t = await startTestApp({
        env: {
          SMTP_URL: await smtp.start(),
          SMS_PROVIDER: 'twilio',
          TWILIO_BASE_URL: await twilio.start(),
          TWILIO_ACCOUNT_SID: twilio.accountSid,
          TWILIO_AUTH_TOKEN: twilio.authToken,
          TWILIO_FROM: '+15005550006',
          EMAIL_MAX_ATTEMPTS: '3',
          WEBHOOK_RETRY_BASE_MS: '50',
        },
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
      await twilio.stop();
      await receiver.close(); // fails the suite if a delivery broke the contract
    });
    afterEach(() => clock.reset());

    const api = () => t.api.as(m.key);
    const reward = async (id: string) => (await api().get(`/v1/rewards/${id}`)).body.reward;
    const smsJob = async (rewardId: string) =>
      (
        await dataSource.query(
          `SELECT status, attempts, next_attempt_at, leased_until FROM mail_jobs WHERE reward_id = $1 AND channel = 'sms' ORDER BY created_at DESC LIMIT 1`,
          [rewardId],
        )
      )[0];
    /** Runs the worker's sweep as its 5-s timer would: it enqueues the texts whose retry is due. */
    const sweep = () => worker.app.get(RewardBackgroundJobs).enqueueOrphans();
    const hooksFor = (rewardId: string) => receiver.at('/hooks').filter((r) => r.json.data.id === rewardId);

    it('sends the text: POST …/Accounts/{sid}/Messages.json, form-encoded To, From, Body, Basic auth; smsStatus SENT', async () => {
      const to = phone();
      const res = await api().post('/v1/rewards', choiceReward(1_000, { recipient: recipient({ phone: to }) }));
      expect(res.status).toBe(201);
      const [message] = await eventually(async () => (twilio.sentTo(to).length ? twilio.sentTo(to) : undefined));
      const request = twilio.requests.find((r) => r.params.get('To') === to)!;
      expect(request.method).toBe('POST');
      expect(request.path).toBe(`/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`);
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`);
      expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      expect([...request.params.keys()].sort()).toEqual(['Body', 'From', 'To']);
      expect(message).toMatchObject({ to, from: '+15005550006', body: `Acme Inc sent you a $10.00 reward: ${res.body.redemptionUrl}` });
      await eventually(async () => (await reward(res.body.reward.id)).smsStatus === 'SENT');
      // The e-mail goes as well, on its own.
      await smtp.waitFor((mail) => mail.to.includes(res.body.reward.recipientEmail));
    });

    it('a refused number (400 21211) fails the text at once: smsStatus FAILED, reward.delivery_failed with channel sms; the e-mail is unaffected', async () => {
      const to = phone();
      twilio.fail(to, { status: 400, code: 21211, message: `The 'To' number ${to} is not a valid phone number.` });
      const res = await api().post('/v1/rewards', choiceReward(2_000, { recipient: recipient({ phone: to }) }));
      const id = res.body.reward.id;
      const failed = await eventually(async () => {
        const r = await reward(id);
        return r.smsStatus === 'FAILED' && r.emailStatus === 'DELIVERED' ? r : undefined;
      });
      expect(await smsJob(id)).toMatchObject({ status: 'FAILED', attempts: 1 });
      const reason = `Twilio 400 21211 The 'To' number ${to} is not a valid phone number.`;
      const event = failed.events.find((e: { type: string }) => e.type === 'reward.delivery_failed');
      expect(event.metadata).toEqual({ channel: 'sms', reason });
      expect(failed).toMatchObject({ status: 'SENT', remainingValueCents: 2_000 });
      const [hook] = await eventually(async () => (hooksFor(id).length ? hooksFor(id) : undefined));
      expect(hook.json).toMatchObject({ id: event.id, type: 'reward.delivery_failed', data: { id, status: 'SENT', channel: 'sms', reason } });
    });

    it('an unsubscribed recipient (400 21610) is permanent too', async () => {
      const to = phone();
      twilio.fail(to, { status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
      const res = await api().post('/v1/rewards', choiceReward(1_100, { recipient: recipient({ phone: to }) }));
      await eventually(async () => (await reward(res.body.reward.id)).smsStatus === 'FAILED');
      expect(await smsJob(res.body.reward.id)).toMatchObject({ status: 'FAILED', attempts: 1 });
    });

    it('a server failure (503, then 429) is retried after EMAIL_RETRY_BASE_MS, then twice that, on the clock; then SENT', async () => {
      clock.freeze();
      const to = phone();
      twilio.fail(to, { status: 503, code: 20503, message: 'Service unavailable', times: 1 });
      const res = await api().post('/v1/rewards', choiceReward(1_500, { recipient: recipient({ phone: to }) }));
      const id = res.body.reward.id;
      const start = clock.now().getTime();

      const first = await eventually(async () => {
        const job = await smsJob(id);
        return job.attempts === 1 && job.next_attempt_at && !job.leased_until ? job : undefined;
      });
      expect(first.status).toBe('PENDING');
      expect(new Date(first.next_attempt_at).getTime()).toBe(start + BASE_MS);
      expect((await reward(id)).smsStatus).toBe('QUEUED');

      twilio.fail(to, { status: 429, code: 20429, message: 'Too Many Requests', times: 1 });
      clock.advance(BASE_MS - 1_000);
      await sweep();
      expect((await smsJob(id)).attempts).toBe(1);
      clock.advance(1_000);
      await sweep();
      const second = await eventually(async () => {
        const job = await smsJob(id);
        return job.attempts === 2 && !job.leased_until ? job : undefined;
      });
      expect(new Date(second.next_attempt_at).getTime()).toBe(start + BASE_MS + 2 * BASE_MS);

      clock.advance(2 * BASE_MS);
      await sweep();
      await eventually(async () => (await reward(id)).smsStatus === 'SENT');
      expect(await smsJob(id)).toMatchObject({ status: 'SENT', attempts: 3 });
      expect(twilio.sentTo(to)).toHaveLength(1);
      expect(hooksFor(id)).toEqual([]);
    });

    it('resend sends every channel again: the e-mail and the text, with the same link', async () => {
      const to = phone();
      const res = await api().post('/v1/rewards', choiceReward(1_300, { recipient: recipient({ phone: to }) }));
      const id = res.body.reward.id;
      const email = res.body.reward.recipientEmail;
      await eventually(async () => {
        const r = await reward(id);
        return r.smsStatus === 'SENT' && r.emailStatus === 'DELIVERED';
      });
      const resent = await api().post(`/v1/rewards/${id}/resend`, {});
      expect(resent.status).toBeLessThan(300);
      await eventually(async () => twilio.sentTo(to).length === 2);
      await eventually(async () => smtp.messages.filter((mail) => mail.to.includes(email)).length === 2);
      expect(twilio.sentTo(to).map((m) => m.body)).toEqual([
        `Acme Inc sent you a $13.00 reward: ${res.body.redemptionUrl}`,
        `Acme Inc sent you a $13.00 reward: ${res.body.redemptionUrl}`,
      ]);
      const r = await eventually(async () => {
        const current = await reward(id);
        return current.smsStatus === 'SENT' && current.emailStatus === 'DELIVERED' ? current : undefined;
      });
      const resends = r.events.filter((e: { type: string }) => e.type === 'reward.resent').map((e: { metadata: unknown }) => e.metadata);
      expect(resends).toEqual(expect.arrayContaining([{ channel: 'email' }, { channel: 'sms' }]));
      expect(resends).toHaveLength(2);
    });
  });
});
