import { DataSource } from 'typeorm';
import { AuditLog } from '@app/audit';
import { Sweepers } from '@app/core';
import { LOW_BALANCE_MAIL_SWEEP } from '../../libs/wallet/src/low-balance-mail.sweep';
import { addMember } from '../support/dashboard';
import { eventually } from '../support/processes';
import { choiceReward } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Low-balance alerts (docs/alerts.md): settings, the e-mail to owners and admins, `wallet.low_balance`. */
describe('Low-balance alerts', () => {
  const smtp = new SmtpSink();
  let receiver: WebhookReceiver;
  let t: TestApp;
  let worker: TestWorker;
  let db: DataSource;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: { ...(await isolatedDatabase()), SMTP_URL: await smtp.start(), WEBHOOK_RETRY_BASE_MS: '50' } });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await smtp.stop();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });

  const topUp = async (m: SeededMerchant, amountCents: number, currency?: string) => {
    const res = await t.api.as(m.key).post('/v1/topups', { amountCents, ...(currency ? { currency } : {}) });
    expect(res.status).toBe(201);
  };
  const send = async (m: SeededMerchant, valueCents: number) => {
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(valueCents));
    expect(res.status).toBe(201);
  };
  const setThresholds = async (m: SeededMerchant, lowBalance: { currency: string; thresholdCents: number | null }[]) => {
    const res = await t.api.as(m.key).put('/v1/account/alert-settings', { alertSettings: { lowBalance } });
    expect(res.status).toBe(200);
    return res.body;
  };
  /** The alerts recorded for the account, oldest first: they are written with the movement, so no waiting. */
  const events = async (m: SeededMerchant) =>
    ((await db.query(`SELECT data FROM events WHERE account_id = $1 AND type = 'wallet.low_balance' ORDER BY seq`, [m.accountId])) as { data: unknown }[]).map(
      (row) => row.data,
    );
  /**
   * Runs the e-mail sweep to its end, twice (the first may be a run that began before the last
   * alert committed), so every e-mail owed by now has gone out.
   */
  const sweepMails = async () => {
    await worker.app.get(Sweepers).run(LOW_BALANCE_MAIL_SWEEP);
    await worker.app.get(Sweepers).run(LOW_BALANCE_MAIL_SWEEP);
  };
  const alertMails = (m: SeededMerchant) => smtp.messages.filter((mail) => mail.subject.startsWith('Low balance') && mail.text.includes(accountNames.get(m.accountId)!));
  const accountNames = new Map<string, string>();
  const merchant = async () => {
    const name = `Alerts ${Math.random().toString(36).slice(2, 8)}`;
    const m = await seedMerchant(t, { name });
    accountNames.set(m.accountId, name);
    return m;
  };

  it('a fall below the threshold e-mails each owner and admin once and sends one wallet.low_balance; a second fall within 24 h sends nothing', async () => {
    const m = await merchant();
    const admin = await addMember(t, m.accountId, 'admin');
    const developer = await addMember(t, m.accountId, 'developer');
    const viewer = await addMember(t, m.accountId, 'viewer');
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url(`/low-${m.accountId}`), events: ['wallet.low_balance'] });
    expect(hook.status).toBe(201);
    await topUp(m, 10_000);

    expect((await t.api.as(m.readKey).get('/v1/account/alert-settings')).body).toEqual({ alertSettings: { lowBalance: [] } });
    expect(await setThresholds(m, [{ currency: 'USD', thresholdCents: 5_000 }])).toEqual({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 5_000 }] } });
    expect((await t.api.as(m.readKey).get('/v1/account/alert-settings')).body).toEqual({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 5_000 }] } });

    await send(m, 3_000); // 7,000 left: above
    expect(await events(m)).toEqual([]);
    await send(m, 3_000); // 4,000 left: below
    expect(await events(m)).toEqual([{ currency: 'USD', availableCents: 4_000, thresholdCents: 5_000 }]);

    const delivered = await eventually(async () => receiver.at(`/low-${m.accountId}`).length === 1 && receiver.at(`/low-${m.accountId}`));
    expect(delivered[0].json).toMatchObject({ type: 'wallet.low_balance', data: { currency: 'USD', availableCents: 4_000, thresholdCents: 5_000 } });

    await smtp.waitFor((mail) => mail.to.includes(admin.email));
    await smtp.waitFor((mail) => mail.to.includes(m.email.toLowerCase()) && mail.subject.startsWith('Low balance'));
    await send(m, 1_000); // 3,000 left: still below, within 24 h
    await sweepMails();
    expect(await events(m)).toHaveLength(1);
    const mails = alertMails(m);
    expect(mails.map((mail) => mail.to.toLowerCase()).sort()).toEqual([admin.email, m.email.toLowerCase()].sort());
    expect(mails.some((mail) => mail.to.includes(developer.email) || mail.to.includes(viewer.email))).toBe(false);
    expect(mails[0].subject).toBe(`Low balance: USD wallet of ${accountNames.get(m.accountId)}`);
    expect(mails[0].text).toContain('$40.00 available, below your alert threshold of $50.00');
    expect(receiver.at(`/low-${m.accountId}`)).toHaveLength(1);
  });

  it('alerts again only once armed again by a rise to the threshold, and still at most once per 24 h', async () => {
    const m = await merchant();
    await topUp(m, 10_000);
    await setThresholds(m, [{ currency: 'USD', thresholdCents: 5_000 }]);
    await send(m, 6_000); // 4,000: alert 1
    expect(await events(m)).toHaveLength(1);
    // Each alert's e-mail goes out before the test moves a day on (a later alert's e-mail replaces one still unsent).
    const mailed = (count: number) => eventually(async () => alertMails(m).length === count);
    await mailed(1);
    const dayLater = () => db.query(`UPDATE low_balance_alerts SET last_sent_at = last_sent_at - interval '25 hours' WHERE account_id = $1`, [m.accountId]);

    // A day on, still below and never back above: not armed, nothing.
    await dayLater();
    await send(m, 500);
    expect(await events(m)).toHaveLength(1);

    // Back above (a top-up arms it), then below again: alert 2, with the balance of that moment.
    await topUp(m, 5_000); // 8,500
    await send(m, 4_000); // 4,500
    expect(await events(m)).toEqual([
      { currency: 'USD', availableCents: 4_000, thresholdCents: 5_000 },
      { currency: 'USD', availableCents: 4_500, thresholdCents: 5_000 },
    ]);
    await mailed(2);

    // Above and below again within 24 h of alert 2: armed, but nothing until the day is over.
    await topUp(m, 1_000); // 5,500
    await send(m, 1_000); // 4,500
    expect(await events(m)).toHaveLength(2);
    await dayLater();
    await send(m, 500); // 4,000: the armed alert goes out now
    expect((await events(m))[2]).toEqual({ currency: 'USD', availableCents: 4_000, thresholdCents: 5_000 });

    await sweepMails();
    expect(alertMails(m).map((mail) => /has (\S+) available/.exec(mail.text)?.[1])).toEqual(['$40.00', '$45.00', '$40.00']);
  });

  it('concurrent sends that cross the threshold together raise exactly one alert', async () => {
    const m = await merchant();
    await topUp(m, 10_000);
    await setThresholds(m, [{ currency: 'USD', thresholdCents: 5_000 }]);
    await Promise.all(Array.from({ length: 12 }, () => send(m, 500))); // 4,000 left
    // They serialise on the wallet row: the one that took it from 5,000 to 4,500 alerted, none other.
    expect(await events(m)).toEqual([{ currency: 'USD', availableCents: 4_500, thresholdCents: 5_000 }]);
    await sweepMails();
    expect(alertMails(m)).toHaveLength(1);
  });

  it('each wallet has its own threshold: a conversion out of one lowers it and alerts in its currency', async () => {
    const m = await merchant();
    await topUp(m, 10_000);
    await topUp(m, 2_000, 'EUR');
    await setThresholds(m, [
      { currency: 'EUR', thresholdCents: 1_500 },
      { currency: 'USD', thresholdCents: 100 },
    ]);
    const quote = await t.api.as(m.key).post('/v1/fx/quotes', { from: 'EUR', to: 'USD', toAmountCents: 1_000 });
    expect(quote.status).toBe(201);
    const converted = await t.api.as(m.key).post('/v1/fx/conversions', { quoteId: quote.body.quote.id }, { headers: { 'Idempotency-Key': `alerts-${m.accountId}` } });
    expect(converted.status).toBe(201);
    const [event] = (await events(m)) as { currency: string; availableCents: number; thresholdCents: number }[];
    expect(event).toMatchObject({ currency: 'EUR', thresholdCents: 1_500 });
    expect(event.availableCents).toBe(2_000 - converted.body.conversion.fromAmountCents);
    expect(await events(m)).toHaveLength(1);
  });

  it('settings: one entry per supported currency, thresholds 1 to 100,000,000; null or left out clears it; bad input is 400 with issues', async () => {
    const m = await merchant();
    const put = (body: unknown) => t.api.as(m.key).put('/v1/account/alert-settings', body);
    const issues = async (body: unknown) => {
      const res = await put(body);
      expect(res.status).toBe(400);
      return [...new Set(res.body.issues.map((issue: { path: string }) => issue.path))];
    };
    expect(await issues({ alertSettings: { lowBalance: [{ currency: 'usd', thresholdCents: 100 }] } })).toEqual(['alertSettings.lowBalance.0.currency']);
    expect(await issues({ alertSettings: { lowBalance: [{ currency: 'XYZ', thresholdCents: 100 }] } })).toEqual(['alertSettings.lowBalance.0.currency']);
    expect(
      await issues({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 100 }, { currency: 'USD', thresholdCents: 200 }] } }),
    ).toEqual(['alertSettings.lowBalance.1.currency']);
    expect(await issues({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 0 }] } })).toEqual(['alertSettings.lowBalance.0.thresholdCents']);
    expect(await issues({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 100_000_001 }] } })).toEqual(['alertSettings.lowBalance.0.thresholdCents']);
    expect(await issues({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 10.5 }] } })).toEqual(['alertSettings.lowBalance.0.thresholdCents']);
    expect(await issues({ alertSettings: { lowBalance: [{ currency: 'USD' }] } })).toEqual(['alertSettings.lowBalance.0.thresholdCents']);
    expect(await issues({ alertSettings: { lowBalance: 'USD' } })).toEqual(['alertSettings.lowBalance']);
    expect(await issues({})).toEqual(['alertSettings']);
    expect((await t.api.as(m.readKey).get('/v1/account/alert-settings')).body.alertSettings.lowBalance).toEqual([]);

    expect(
      await setThresholds(m, [
        { currency: 'GBP', thresholdCents: 100_000_000 },
        { currency: 'USD', thresholdCents: 1 },
        { currency: 'EUR', thresholdCents: null },
      ]),
    ).toEqual({ alertSettings: { lowBalance: [{ currency: 'GBP', thresholdCents: 100_000_000 }, { currency: 'USD', thresholdCents: 1 }] } });
    expect(await setThresholds(m, [{ currency: 'USD', thresholdCents: 2 }])).toEqual({ alertSettings: { lowBalance: [{ currency: 'USD', thresholdCents: 2 }] } });

    // Scopes as branding: reading needs account:read, changing account:write.
    expect((await t.api.as(m.readKey).put('/v1/account/alert-settings', { alertSettings: { lowBalance: [] } })).status).toBe(403);
    expect((await t.api.as(m.writeKey).get('/v1/account/alert-settings')).status).toBe(403);
    expect((await t.api.as(m.writeKey).put('/v1/account/alert-settings', { alertSettings: { lowBalance: [] } })).status).toBe(200);
  });

  it('each change of the settings is in the audit log with the thresholds before and after; a refused one is not', async () => {
    const m = await merchant();
    await setThresholds(m, [{ currency: 'USD', thresholdCents: 5_000 }]);
    await setThresholds(m, [{ currency: 'USD', thresholdCents: 7_500 }, { currency: 'EUR', thresholdCents: 1_000 }]);
    expect((await t.api.as(m.key).put('/v1/account/alert-settings', { alertSettings: { lowBalance: [{ currency: 'XYZ', thresholdCents: 1 }] } })).status).toBe(400);

    const { entries } = await t.app.get(AuditLog).list(m.accountId, { page: 1, pageSize: 10, action: 'alert_settings.updated' });
    expect(entries.map((entry) => entry.metadata)).toEqual([
      {
        before: { lowBalance: [{ currency: 'USD', thresholdCents: 5_000 }] },
        after: { lowBalance: [{ currency: 'EUR', thresholdCents: 1_000 }, { currency: 'USD', thresholdCents: 7_500 }] },
      },
      { before: { lowBalance: [] }, after: { lowBalance: [{ currency: 'USD', thresholdCents: 5_000 }] } },
    ]);
    expect(entries[0]).toMatchObject({ actor: { type: 'api_key' }, targetType: 'account', targetId: m.accountId });
  });
});
