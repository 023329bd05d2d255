import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { RewardBackgroundJobs, RewardLifecycle } from '@app/rewards';
import { RewardMailService } from '../../libs/rewards/src/reward-mail.service';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { connect, registerApp } from '../support/oauth';
import { eventually } from '../support/processes';
import { catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';
import { WebhookReceiver } from '../support/webhook-receiver';

/** One reminder "day" (REMINDER_UNIT_MS): a minute, so the clock moves by minutes; nothing waits for it. */
const DAY = 60_000;

describe('reward reminders: settings, after-days and before-expiry reminders, once each, never for a closed reward, opt-out', () => {
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
      env: { SMTP_URL: await smtp.start(), REMINDER_UNIT_MS: String(DAY), WEBHOOK_RETRY_BASE_MS: '50' },
      overrides: [clockOverride(clock)],
    });
    worker = await startTestWorker(t);
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 500_000);
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url('/hooks'), events: ['reward.reminded'] });
    expect(hook.status).toBe(201);
    // Saved before any reward of the suite is sent: reminders due after this are sent.
    const put = await t.api.as(m.key).put('/v1/account/reminder-settings', { reminderSettings: { afterDays: [1, 3], beforeExpiryDays: 2 } });
    expect(put.status).toBe(200);
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
  /** Runs the worker's reminder sweep as its timer would, at the clock's time. */
  const sweep = () => worker.app.get(RewardBackgroundJobs).sendDueReminders();
  const remindersTo = (email: string) => smtp.messages.filter((mail) => mail.to.includes(email) && /^Reminder:/.test(mail.subject));
  const remindedEvents = async (id: string) => (await reward(id)).events.filter((e: { type: string }) => e.type === 'reward.reminded');
  const mailJobs = (id: string, kind: 'reminder' | 'reward' = 'reminder') =>
    dataSource.query(`SELECT kind, status FROM mail_jobs WHERE reward_id = $1 AND kind = $2`, [id, kind]);
  const send = async (body: Record<string, unknown>) => {
    const res = await api().post('/v1/rewards', body);
    expect(res.status).toBe(201);
    return res.body as { reward: { id: string; sentAt: string }; redemptionUrl: string };
  };
  /** The clock at `ms` after the reward's delivery (its sentAt, written when it was sent). */
  const atSentPlus = (sent: { reward: { sentAt: string } }, ms: number) => clock.freeze(new Date(new Date(sent.reward.sentAt).getTime() + ms));
  /** Every e-mail of that kind is out (or skipped): none left pending. */
  const settled = async (id: string, kind: 'reminder' | 'reward' = 'reminder') =>
    eventually(async () => (await mailJobs(id, kind)).every((job: { status: string }) => job.status !== 'PENDING'));
  /**
   * The rewards' own e-mails are recorded as delivered. The sink has a message a moment before the mail worker
   * records it, on the job and on the reward's row (`email_status`), which that statement locks; a sweep in
   * that moment passes the reward by (SKIP LOCKED) until the next one. A test that sweeps once after a send
   * waits for this first.
   */
  const delivered = async (...ids: string[]) =>
    eventually(async () => (await dataSource.query(`SELECT 1 FROM rewards WHERE id = ANY ($1) AND email_status = 'DELIVERED'`, [ids])).length === ids.length);

  it('settings: the default is none; PUT replaces them, audited; GET reads them back', async () => {
    const other = await seedMerchant(t);
    expect((await t.api.as(other.readKey).get('/v1/account/reminder-settings')).body).toEqual({ reminderSettings: { afterDays: [], beforeExpiryDays: null } });
    const put = await t.api.as(other.key).put('/v1/account/reminder-settings', { reminderSettings: { afterDays: [2, 7, 30], beforeExpiryDays: 5 } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ reminderSettings: { afterDays: [2, 7, 30], beforeExpiryDays: 5 } });
    expect((await t.api.as(other.readKey).get('/v1/account/reminder-settings')).body).toEqual(put.body);
    const [entry] = await dataSource.query(`SELECT metadata FROM audit_log WHERE account_id = $1 AND action = 'reminder_settings.updated'`, [other.accountId]);
    expect(entry.metadata).toEqual({ before: { afterDays: [], beforeExpiryDays: null }, after: { afterDays: [2, 7, 30], beforeExpiryDays: 5 } });
    const cleared = await t.api.as(other.key).put('/v1/account/reminder-settings', { reminderSettings: { afterDays: [], beforeExpiryDays: null } });
    expect(cleared.body).toEqual({ reminderSettings: { afterDays: [], beforeExpiryDays: null } });
  });

  it('settings: bad input is 400 in the error shape, naming the field; nothing changes', async () => {
    const other = await seedMerchant(t);
    const issues = async (reminderSettings: unknown) => {
      const res = await t.api.as(other.key).put('/v1/account/reminder-settings', { reminderSettings });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad_request');
      return [...new Set(res.body.issues.map((issue: { path: string }) => issue.path))];
    };
    expect(await issues({ afterDays: [0], beforeExpiryDays: null })).toEqual(['reminderSettings.afterDays']);
    expect(await issues({ afterDays: [91], beforeExpiryDays: null })).toEqual(['reminderSettings.afterDays']);
    expect(await issues({ afterDays: [1.5], beforeExpiryDays: null })).toEqual(['reminderSettings.afterDays']);
    expect(await issues({ afterDays: [1, 2, 3, 4], beforeExpiryDays: null })).toEqual(['reminderSettings.afterDays']);
    expect(await issues({ afterDays: [7, 3], beforeExpiryDays: null })).toEqual(['reminderSettings.afterDays.1']);
    expect(await issues({ afterDays: [3, 3], beforeExpiryDays: null })).toEqual(['reminderSettings.afterDays.1']);
    expect(await issues({ afterDays: [], beforeExpiryDays: 0 })).toEqual(['reminderSettings.beforeExpiryDays']);
    expect(await issues({ afterDays: [], beforeExpiryDays: 31 })).toEqual(['reminderSettings.beforeExpiryDays']);
    expect(await issues({ afterDays: [] })).toEqual(['reminderSettings.beforeExpiryDays']);
    expect(await issues({ beforeExpiryDays: 3 })).toEqual(['reminderSettings.afterDays']);
    expect((await t.api.as(other.key).put('/v1/account/reminder-settings', {})).status).toBe(400);
    expect((await t.api.as(other.key).get('/v1/account/reminder-settings')).body).toEqual({ reminderSettings: { afterDays: [], beforeExpiryDays: null } });
  });

  it('an OAuth token may read the settings but not change them (403)', async () => {
    const app = await registerApp(t, ['account:read', 'rewards:read']);
    const tokens = await connect(t, app, m, 'account:read rewards:read');
    const read = await t.api.as(tokens.access_token).get('/v1/account/reminder-settings');
    expect(read.status).toBe(200);
    expect(read.body.reminderSettings).toEqual({ afterDays: [1, 3], beforeExpiryDays: 2 });
    const put = await t.api.as(tokens.access_token).put('/v1/account/reminder-settings', { reminderSettings: { afterDays: [], beforeExpiryDays: null } });
    expect(put.status).toBe(403);
    expect((await api().get('/v1/account/reminder-settings')).body.reminderSettings).toEqual({ afterDays: [1, 3], beforeExpiryDays: 2 });
  });

  it('each afterDays reminder once, after the delivery, with the same link and a reminder subject; timeline and reward.reminded webhook', async () => {
    clock.freeze();
    const to = recipient();
    const sent = await send(choiceReward(1_000, { recipient: to, externalId: 'remind-after' }));
    const id = sent.reward.id;
    await smtp.waitFor((mail) => mail.to.includes(to.email));
    await delivered(id);

    // Not due yet.
    await sweep();
    atSentPlus(sent, DAY - 1_000);
    await sweep();
    expect(await remindedEvents(id)).toEqual([]);

    atSentPlus(sent, DAY + 1_000);
    await Promise.all([sweep(), sweep()]); // two workers at once: one reminder
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email) && /^Reminder:/.test(mail.subject));
    expect(mail.subject).toBe('Reminder: your $10.00 reward from Acme Inc is waiting');
    expect(mail.text).toContain(sent.redemptionUrl);
    expect(mail.text).toContain('A quick reminder: your reward is still waiting for you.');
    await sweep();
    await settled(id);
    expect(remindersTo(to.email)).toHaveLength(1);
    const [event] = await remindedEvents(id);
    expect(event.metadata).toEqual({ channel: 'email', reminder: 'after_days' });
    const hook = await eventually(async () => receiver.at('/hooks').find((r) => r.json.id === event.id));
    expect(hook.json).toMatchObject({
      type: 'reward.reminded',
      data: { id, status: 'SENT', valueCents: 1_000, remainingValueCents: 1_000, currency: 'USD', externalId: 'remind-after', reminder: 'after_days' },
    });

    // The 3-day one, once; then nothing more is owed.
    clock.advance(2 * DAY);
    await sweep();
    await sweep();
    await eventually(async () => remindersTo(to.email).length === 2);
    expect(await remindedEvents(id)).toHaveLength(2);
    clock.advance(30 * DAY);
    await sweep();
    await settled(id);
    expect(remindersTo(to.email)).toHaveLength(2);
    const [row] = await dataSource.query(`SELECT remind_at, reminded_after_days FROM rewards WHERE id = $1`, [id]);
    expect(row).toEqual({ remind_at: null, reminded_after_days: [1, 3] });
  });

  it('the beforeExpiryDays reminder once, before expiresAt, in the recipient’s language; reminders due together make one e-mail', async () => {
    clock.freeze();
    const to = recipient({ language: 'fr' });
    const expiresAt = new Date(clock.now().getTime() + 10 * DAY).toISOString();
    const sent = await send(choiceReward(2_000, { recipient: to, expiresAt }));
    const id = sent.reward.id;
    await smtp.waitFor((mail) => mail.to.includes(to.email));
    await delivered(id);

    // 8 days on, the 1- and 3-day reminders and the one 2 days before expiry are all due: one e-mail, the last due.
    clock.freeze(new Date(new Date(expiresAt).getTime() - 2 * DAY + 1_000));
    await sweep();
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email) && /^Rappel/.test(mail.subject));
    expect(mail.subject).toMatch(/^Rappel : votre récompense de 20,00\s\$US offerte par Acme Inc vous attend$/u);
    expect(mail.text).toContain(sent.redemptionUrl);
    const events = await remindedEvents(id);
    expect(events.map((e: { metadata: unknown }) => e.metadata)).toEqual([{ channel: 'email', reminder: 'before_expiry' }]);
    await eventually(async () => receiver.at('/hooks').some((r) => r.json.id === events[0].id && r.json.data.reminder === 'before_expiry'));

    clock.advance(DAY);
    await sweep();
    await settled(id);
    expect(smtp.messages.filter((m) => m.to.includes(to.email) && /^Rappel/.test(m.subject))).toHaveLength(1);
    expect(await remindedEvents(id)).toHaveLength(1);
  });

  it('no reminder once the reward is cancelled, redeemed or expired', async () => {
    clock.freeze();
    const picks = await catalogPicks(t, m.key);
    const canceled = await send(choiceReward(1_000));
    expect((await api().post(`/v1/rewards/${canceled.reward.id}/cancel`)).status).toBe(200);
    // FIXED: REDEEMED once its card is issued.
    const redeemed = await send(fixedReward(picks.fixedUsd));
    await eventually(async () => (await reward(redeemed.reward.id)).status === 'REDEEMED');
    const expiring = await send(choiceReward(1_000, { expiresAt: new Date(clock.now().getTime() + 5 * DAY).toISOString() }));
    await delivered(expiring.reward.id);

    clock.advance(6 * DAY);
    await worker.app.get(RewardLifecycle).expireDue();
    expect((await reward(expiring.reward.id)).status).toBe('EXPIRED');
    await sweep();
    for (const id of [canceled.reward.id, redeemed.reward.id, expiring.reward.id]) {
      expect(await remindedEvents(id)).toEqual([]);
      expect(await mailJobs(id)).toEqual([]);
      expect((await dataSource.query(`SELECT remind_at FROM rewards WHERE id = $1`, [id]))[0].remind_at).toBeNull();
    }
  });

  it('a reminder still queued when its reward is cancelled is not sent', async () => {
    const to = recipient();
    const sent = await send(choiceReward(1_000, { recipient: to }));
    await eventually(async () => (await reward(sent.reward.id)).emailStatus === 'DELIVERED');
    // As the sweep writes it; the cancel comes before a worker takes the job.
    await dataSource.query(`INSERT INTO mail_jobs (id, reward_id, kind, status) VALUES ('mail_reminder_late', $1, 'reminder', 'PENDING')`, [sent.reward.id]);
    expect((await api().post(`/v1/rewards/${sent.reward.id}/cancel`)).status).toBe(200);
    expect(await worker.app.get(RewardMailService).send('mail_reminder_late', false)).toBe('failed');
    expect(await mailJobs(sent.reward.id)).toEqual([{ kind: 'reminder', status: 'FAILED' }]);
    expect(remindersTo(to.email)).toEqual([]);
    expect((await reward(sent.reward.id)).emailStatus).toBe('DELIVERED');
  });

  it('settings saved after a send re-plan it: a reward looked at while its account had none gets what the new settings owe it, once', async () => {
    const other = await seedMerchant(t, { name: 'Beta Ltd' });
    await fund(t, other, 100_000);
    const to = recipient();
    const res = await t.api.as(other.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }));
    expect(res.status).toBe(201);
    const sent = res.body as { reward: { id: string; sentAt: string } };
    const id = sent.reward.id;
    const remindAt = async () => (await dataSource.query(`SELECT remind_at FROM rewards WHERE id = $1`, [id]))[0].remind_at as Date | null;
    await delivered(id);

    // Sent while its account has no settings: the sweep is not asked to look at it, now or later.
    expect(await remindAt()).toBeNull();
    atSentPlus(sent, 0);
    await sweep();
    expect(await remindAt()).toBeNull();

    // Saving settings asks the sweep to look again, and it plans the new after-days reminder.
    const put = await t.api.as(other.key).put('/v1/account/reminder-settings', { reminderSettings: { afterDays: [2], beforeExpiryDays: null } });
    expect(put.status).toBe(200);
    expect(await remindAt()).not.toBeNull();
    await sweep();
    expect((await remindAt())?.getTime()).toBe(new Date(sent.reward.sentAt).getTime() + 2 * DAY);

    atSentPlus(sent, DAY + 1_000);
    await sweep();
    expect(remindersTo(to.email)).toHaveLength(0);
    atSentPlus(sent, 2 * DAY + 1_000);
    await Promise.all([sweep(), sweep()]);
    await eventually(async () => remindersTo(to.email).length === 1);
    await sweep();
    await settled(id);
    expect(remindersTo(to.email)).toHaveLength(1);
    expect(await remindAt()).toBeNull();
    await expectLedgerInvariants(dataSource, other.accountId);
  });

  it('a send that read "no settings" just before they were saved, and committed just after, is caught up by the sweep; one made long after is left alone', async () => {
    const other = await seedMerchant(t, { name: 'Gamma GmbH' });
    await fund(t, other, 100_000);
    const put = await t.api.as(other.key).put('/v1/account/reminder-settings', { reminderSettings: { afterDays: [2], beforeExpiryDays: null } });
    expect(put.status).toBe(200);
    const to = recipient();
    const raced = (await t.api.as(other.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }))).body as { reward: { id: string; sentAt: string } };
    const later = (await t.api.as(other.key).post('/v1/rewards', choiceReward(1_000))).body as { reward: { id: string; sentAt: string } };
    // The race, arranged: the first send left remind_at empty, as a send that read the settings before the save
    // does; the second was made 10 minutes after the change and has nothing to look at.
    await dataSource.query(`UPDATE rewards SET remind_at = NULL WHERE id = ANY ($1)`, [[raced.reward.id, later.reward.id]]);
    await dataSource.query(`UPDATE rewards SET created_at = created_at + interval '10 minutes' WHERE id = $1`, [later.reward.id]);
    const remindAt = async (id: string) => (await dataSource.query(`SELECT remind_at FROM rewards WHERE id = $1`, [id]))[0].remind_at as Date | null;
    await delivered(raced.reward.id, later.reward.id);

    atSentPlus(raced, 0);
    await sweep();
    expect((await remindAt(raced.reward.id))?.getTime()).toBe(new Date(raced.reward.sentAt).getTime() + 2 * DAY);
    expect(await remindAt(later.reward.id)).toBeNull();
    atSentPlus(raced, 2 * DAY + 1_000);
    await sweep();
    await eventually(async () => remindersTo(to.email).length === 1);
    await settled(raced.reward.id);
  });

  it('the sweep is registered on the worker’s Sweepers as reward-reminders', () => {
    expect(worker.app.get(Sweepers).names()).toContain('reward-reminders');
  });

  it('a reward past expiresAt gets no reminder even before the expiry sweep has run', async () => {
    clock.freeze();
    const sent = await send(choiceReward(1_000, { expiresAt: new Date(clock.now().getTime() + 4 * DAY).toISOString() }));
    clock.advance(4 * DAY + 1_000);
    await sweep();
    expect(await remindedEvents(sent.reward.id)).toEqual([]);
    expect(await mailJobs(sent.reward.id)).toEqual([]);
  });

  it('reminders: false opts one reward out, on POST /v1/rewards and on bulk items', async () => {
    clock.freeze();
    const single = await send(choiceReward(1_000, { reminders: false }));
    const bulk = await api().post('/v1/rewards/bulk', { rewards: [choiceReward(1_000, { reminders: false }), choiceReward(1_000)] });
    expect(bulk.status).toBe(207);
    const [optedOut, remembered] = bulk.body.results.map((r: { rewardId: string }) => r.rewardId);
    expect((await api().post('/v1/rewards', choiceReward(1_000, { reminders: 'no' }))).status).toBe(400);
    await delivered(single.reward.id, optedOut, remembered);

    atSentPlus(single, DAY + 60_000);
    await sweep();
    expect(await remindedEvents(single.reward.id)).toEqual([]);
    expect(await remindedEvents(optedOut)).toEqual([]);
    await eventually(async () => (await remindedEvents(remembered)).length === 1);
  });
});
