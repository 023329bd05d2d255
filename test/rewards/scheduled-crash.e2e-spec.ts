import type { ChildProcess } from 'node:child_process';
import { DataSource, QueryRunner } from 'typeorm';
import { DELIVERY_BATCH_SIZE } from '../../libs/rewards/src/lifecycle/reward-lifecycle.service';
import { adminDataSource } from '../support/database-admin';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually, spawnBuilt } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** A batch and a half: the doomed worker holds one whole batch, a second worker the rest, a third finds nothing. */
const COUNT = DELIVERY_BATCH_SIZE + DELIVERY_BATCH_SIZE / 2;
/** The bulk API's most items per request. */
const BULK_MAX = 500;

/**
 * Scheduled sends falling due together, drained by several real worker processes (the built app),
 * one of them killed (SIGKILL) while it holds a batch in an open transaction (docs/delivery.md,
 * Scheduled sends). Each reward is sent exactly once: one e-mail job, one e-mail in the sink, one
 * `reward.sent` event and webhook. The drain is held still at a known point by a lock on mail_jobs
 * (the batch's insert waits on it), rather than by timing: nothing here sleeps.
 */
describe('scheduled sends: several workers, one killed mid-drain', () => {
  const smtp = new SmtpSink();
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let db: DataSource;
  let owner: DataSource;
  let m: SeededMerchant;
  let smtpUrl = '';
  const children: ChildProcess[] = [];
  /** What the workers printed, shown when the test fails. */
  let output = '';

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ env: { ...(await isolatedDatabase()), SMTP_URL: (smtpUrl = await smtp.start()), WEBHOOK_RETRY_BASE_MS: '50' } });
    db = t.app.get(DataSource);
    owner = await adminDataSource(t.config.databaseUrl);
    m = await seedMerchant(t);
    await fund(t, m, 10_000_000);
  });
  afterAll(async () => {
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    for (const child of running) child.kill('SIGKILL');
    await Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    await owner?.destroy();
    await t?.close();
    await smtp.stop();
    await receiver.close();
  });

  const worker = (): ChildProcess => {
    const child = spawnBuilt('worker', [], {
      DATABASE_URL: t.config.databaseUrl,
      QUEUE_PREFIX: t.config.queuePrefix,
      SMTP_URL: smtpUrl,
      LOG_LEVEL: 'warn',
      // The due-sender ticks every 100 ms, so the drain needs no waiting.
      EXPIRY_SWEEP_INTERVAL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    children.push(child);
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    return child;
  };
  /**
   * Transactions waiting on the test's lock of mail_jobs: delivery batches at their insert, each
   * holding its batch of rewards locked (pg_locks, which any role may read).
   */
  const waitingBatches = async (): Promise<number> => {
    const [row] = await owner.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype = 'relation' AND relation = 'mail_jobs'::regclass`);
    return row.n;
  };

  it(`${COUNT} due at once: each sent exactly once though a worker dies holding a batch`, async () => {
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url('/sent'), events: ['reward.sent'] });
    expect(hook.status).toBe(201);
    const items = Array.from({ length: COUNT }, () => choiceReward(1_000, { recipient: recipient(), deliverAt: new Date(Date.now() + 120_000).toISOString() }));
    const ids: string[] = [];
    for (let from = 0; from < COUNT; from += BULK_MAX) {
      const bulk = await t.api.as(m.key).post('/v1/rewards/bulk', { rewards: items.slice(from, from + BULK_MAX) });
      expect(bulk.status).toBe(207);
      expect(bulk.body.failed).toBe(0);
      for (const result of bulk.body.results as { rewardId: string }[]) ids.push(result.rewardId);
    }
    const emails = new Map(ids.map((id, i) => [id, (items[i].recipient as { email: string }).email]));

    // The e-mail jobs' table locked: a batch locks its rewards, then waits at its insert.
    const lock: QueryRunner = owner.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    await lock.query(`LOCK TABLE mail_jobs IN EXCLUSIVE MODE`);
    try {
      // Due now (two minutes are moved into the past rather than waited for).
      await db.query(`UPDATE rewards SET deliver_at = now() - interval '1 second' WHERE id = ANY($1::text[])`, [ids]);
      const doomed = worker();
      await eventually(async () => (await waitingBatches()) === 1, 60_000, 100).catch(async (error) => {
        throw new Error(`${String(error)}\n${output.slice(-3000)}`);
      });
      // Two more take what is left (SKIP LOCKED: never the doomed worker's rewards).
      worker();
      worker();
      await eventually(async () => (await waitingBatches()) === 2, 60_000, 100);
      const [locked] = await owner.query(`SELECT count(*)::int AS n FROM rewards WHERE id = ANY($1::text[]) AND status = 'CREATED'`, [ids]);
      expect(locked.n).toBe(COUNT);

      doomed.kill('SIGKILL');
      await new Promise((resolve) => doomed.once('exit', resolve));
      await lock.commitTransaction();
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
    // A restarted worker joins the drain.
    worker();

    await eventually(
      async () => {
        const [row] = await db.query(`SELECT count(*)::int AS n FROM rewards WHERE id = ANY($1::text[]) AND status = 'SENT'`, [ids]);
        return row.n === COUNT;
      },
      90_000,
      200,
    );
    await eventually(async () => ids.every((id) => smtp.messages.some((mail) => mail.to.includes(emails.get(id)!))), 90_000, 200);
    await eventually(async () => receiver.at('/sent').length >= COUNT, 90_000, 200);
    // Once more round the workers' sweeps (100 ms): nothing more comes.
    // A worker marks a job SENT once the relay has accepted its message, so the sink can have the last e-mails first.
    const [{ mails }] = await eventually(async () => {
      const rows = await db.query(
        `SELECT count(*) FILTER (WHERE status = 'SENT')::int AS mails, count(*) FILTER (WHERE status = 'PENDING')::int AS pending
           FROM mail_jobs WHERE reward_id = ANY($1::text[])`,
        [ids],
      );
      return rows[0].pending === 0 && rows;
    }, 90_000, 200);
    expect(mails).toBe(COUNT);

    for (const id of ids) expect(smtp.messages.filter((mail) => mail.to.includes(emails.get(id)!))).toHaveLength(1);
    const jobs = await db.query(`SELECT reward_id, count(*)::int AS n FROM mail_jobs WHERE reward_id = ANY($1::text[]) GROUP BY reward_id`, [ids]);
    expect(jobs).toHaveLength(COUNT);
    expect(jobs.every((row: { n: number }) => row.n === 1)).toBe(true);
    const events = await db.query(`SELECT reward_id, count(*)::int AS n FROM reward_events WHERE type = 'reward.sent' AND reward_id = ANY($1::text[]) GROUP BY reward_id`, [ids]);
    expect(events).toHaveLength(COUNT);
    expect(events.every((row: { n: number }) => row.n === 1)).toBe(true);
    // One reward.sent event per reward reached the receiver: deliveries are at least once (a retry
    // repeats the same event id, docs/webhooks.md), so distinct event ids are counted.
    const hooks = receiver.at('/sent').map((r) => ({ event: r.json.id as string, reward: r.json.data.id as string }));
    const eventsByReward = new Map<string, Set<string>>();
    for (const { event, reward } of hooks) eventsByReward.set(reward, (eventsByReward.get(reward) ?? new Set()).add(event));
    expect(eventsByReward.size).toBe(COUNT);
    expect([...eventsByReward.values()].every((events) => events.size === 1)).toBe(true);
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents).toBe(10_000_000 - COUNT * 1_000);
    await expectLedgerInvariants(db, m.accountId);
  }, 240_000);
});
