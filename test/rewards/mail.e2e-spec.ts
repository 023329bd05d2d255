import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RewardBackgroundJobs } from '@app/rewards';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { parseMime } from '../support/mime';
import { eventually } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride, TestClock } from '../support/test-clock';

describe('reward e-mail', () => {
  const smtp = new SmtpSink();
  const clock = new TestClock();
  let t: TestApp;
  let worker: TestWorker;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start(), MAIL_FROM: 'Rewards <rewards@mail.example>' }, overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    merchant = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, merchant, 100_000);
    await t.api.as(merchant.key).patch('/v1/account/branding', {
      senderName: 'Acme People Team',
      logoUrl: 'https://cdn.acme.test/logo.png',
      brandColor: '#0A7E4F',
    });
  });
  afterAll(async () => {
    await expectLedgerInvariants(t.app.get(DataSource), merchant.accountId);
    await worker?.close();
    await t.close();
    await smtp.stop();
  });

  it('arrives over SMTP with HTML and text parts carrying the branding, the message, the value and a working link', async () => {
    const to = recipient({ firstName: 'Grace' });
    const res = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(5_000, { recipient: to, message: 'Thank you for <b>everything</b> & more' }));
    expect(res.status).toBe(201);
    const mail = await smtp.waitFor((m) => m.to.includes(to.email));
    expect(mail.to).toBe(to.email);

    expect(mail.from).toMatch(/^"?Acme People Team"? <rewards@mail\.example>$/);
    expect(mail.subject).toBe('Acme People Team sent you a $50.00 reward');
    for (const part of [mail.html, mail.text]) {
      expect(part).toContain('Grace');
      expect(part).toContain('$50.00');
    }
    expect(mail.text).toContain('Thank you for <b>everything</b> & more');
    expect(mail.html).toContain('Thank you for &lt;b&gt;everything&lt;/b&gt; &amp; more');
    expect(mail.html).toContain('src="https://cdn.acme.test/logo.png"');
    expect(mail.html).toContain('#0A7E4F');

    const link = new RegExp(`${t.baseUrl}/r/([A-Za-z0-9]{43})`).exec(mail.text)?.[1];
    expect(link).toBeDefined();
    expect(mail.html).toContain(`${t.baseUrl}/r/${link}`);
    // The reward has one link: the e-mail carries the create response's.
    expect(`${t.baseUrl}/r/${link}`).toBe(res.body.redemptionUrl);
    const rows = await t.app.get(DataSource).query(`SELECT token_hash FROM redemption_links WHERE reward_id = $1`, [res.body.reward.id]);
    expect(rows).toHaveLength(1);
  });

  it("every resend carries the create response's link too, which GET with include_credentials=true gives back", async () => {
    const to = recipient();
    const api = t.api.as(merchant.key);
    const res = await api.post('/v1/rewards', choiceReward(1_500, { recipient: to }));
    expect(res.status).toBe(201);
    const id = res.body.reward.id;
    await smtp.waitFor((m) => m.to.includes(to.email));
    expect((await api.post(`/v1/rewards/${id}/resend`)).status).toBe(200);
    expect((await api.post(`/v1/rewards/${id}/resend`)).status).toBe(200);
    await eventually(async () => smtp.messages.filter((m) => m.to.includes(to.email)).length === 3 || undefined);
    const links = smtp.messages
      .filter((m) => m.to.includes(to.email))
      .map((m) => new RegExp(`${t.baseUrl}/r/[A-Za-z0-9]{43}`).exec(m.text)?.[0]);
    expect(links).toEqual([res.body.redemptionUrl, res.body.redemptionUrl, res.body.redemptionUrl]);

    const full = await api.get(`/v1/rewards/${id}?include_credentials=true`);
    expect(full.status).toBe(200);
    expect(full.body.redemptionUrl).toBe(res.body.redemptionUrl);
    const masked = await api.get(`/v1/rewards/${id}`);
    expect(masked.status).toBe(200);
    expect(masked.body).not.toHaveProperty('redemptionUrl');
    // The link needs rewards:write, as full credentials do.
    expect((await t.api.as(merchant.readKey).get(`/v1/rewards/${id}?include_credentials=true`)).status).toBe(403);
  });

  it('without a sender name, the account name signs the e-mail', async () => {
    const other = await seedMerchant(t, { name: 'Plain Co' });
    await fund(t, other, 10_000);
    const to = recipient();
    await t.api.as(other.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }));
    const mail = await smtp.waitFor((m) => m.to.includes(to.email));
    expect(mail.from).toMatch(/^"?Plain Co"? </);
    expect(mail.text).toContain(to.firstName);
    await expectLedgerInvariants(t.app.get(DataSource), other.accountId);
  });

  it('retries when the SMTP server fails temporarily, and the e-mail is delivered once', async () => {
    smtp.failNext(1);
    const to = recipient();
    const res = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }));
    // The retry waits out its backoff (EMAIL_RETRY_BASE_MS, 60 s) on the service's clock: moved past it, and the sweep enqueues it.
    await eventually(async () => {
      const [row] = await t.app.get(DataSource).query(`SELECT attempts, next_attempt_at FROM mail_jobs WHERE reward_id = $1`, [res.body.reward.id]);
      return row.attempts === 1 && row.next_attempt_at !== null;
    });
    clock.advance(60_000);
    await worker.app.get(RewardBackgroundJobs).enqueueOrphans();
    await smtp.waitFor((m) => m.to.includes(to.email));
    let last: unknown;
    const job = await eventually(async () => {
      const [row] = await t.app.get(DataSource).query(`SELECT status, attempts FROM mail_jobs WHERE reward_id = $1`, [res.body.reward.id]);
      last = row;
      return row.status === 'SENT' ? row : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}; mail job: ${JSON.stringify(last)}`);
    });
    expect(job).toEqual({ status: 'SENT', attempts: 2 });
    expect(smtp.messages.filter((m) => m.to.includes(to.email))).toHaveLength(1);
    clock.reset();
  });

  it("records when an e-mail went, or bounced, at the service's clock", async () => {
    // Three days ahead of the wall clock and the database's.
    const at = new Date(Date.now() + 3 * 86_400_000);
    clock.freeze(at);
    try {
      const db = t.app.get(DataSource);
      const to = recipient();
      const sent = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }));
      const job = await eventually(async () => {
        const [row] = await db.query(`SELECT status, sent_at FROM mail_jobs WHERE reward_id = $1`, [sent.body.reward.id]);
        return row.status === 'SENT' ? row : undefined;
      });
      expect(job.sent_at).toEqual(at);

      const bounced = recipient();
      smtp.refuseRecipient(bounced.email, { code: 550, text: '5.1.1 No such user here' });
      const refused = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000, { recipient: bounced }));
      const failed = await eventually(async () => {
        const reward = (await t.api.as(merchant.key).get(`/v1/rewards/${refused.body.reward.id}`)).body.reward;
        return reward.events.find((e: any) => e.type === 'reward.delivery_failed');
      });
      expect(failed.createdAt).toBe(at.toISOString());
    } finally {
      clock.reset();
    }
  });
});

describe('reward e-mail without SMTP_URL', () => {
  it('is written as an .eml file in MAIL_OUTBOX_DIR', async () => {
    const outbox = mkdtempSync(join(tmpdir(), 'outbox-'));
    const t = await startTestApp({ env: { ...(await isolatedDatabase()), MAIL_OUTBOX_DIR: outbox } });
    const worker = await startTestWorker(t);
    try {
      const m = await seedMerchant(t);
      await fund(t, m, 5_000);
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500));
      const file = await eventually(async () => readdirSync(outbox).find((f) => f.includes(res.body.reward.id)));
      expect(file).toMatch(/\.eml$/);
      const mail = parseMime(readFileSync(join(outbox, file), 'utf8'));
      expect(mail.subject).toContain('$25.00');
      expect(mail.html).toContain('/r/');
    } finally {
      await worker.close();
      await t.close();
    }
  });
});
