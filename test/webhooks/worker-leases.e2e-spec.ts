import type { ChildProcess } from 'node:child_process';
import { createServer, Server, Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { WebhookDeliverer } from '@app/webhooks';
import { DeliverySweep } from '../../libs/webhooks/src/delivery/delivery-sweep';
import { eventually, spawnBuilt } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** An SMTP server that accepts connections and never answers: a send through it stays under way. */
class SilentSmtp {
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/**
 * Leases (docs/operations.md, Leases): a worker holds each e-mail and webhook delivery it works on
 * by a short lease that it renews while alive. A worker killed mid-work (SIGKILL of a real worker
 * process, the built app) leaves both to another worker once the lease runs out; a live worker on a
 * slow receiver renews its lease, so the receiver gets the attempt once. The leases are kept by the
 * database's clock: the tests move a lease into the past instead of waiting for it (docs/testing.md).
 */
describe('worker leases', () => {
  const receiver = new WebhookReceiver();
  const smtp = new SmtpSink();
  const silentSmtp = new SilentSmtp();
  let t: TestApp;
  let merchant: SeededMerchant;
  let db: DataSource;
  const workers: TestWorker[] = [];
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    await receiver.start();
    // Attempts may take a minute: longer than a lease, so only renewals keep them.
    t = await startTestApp({ env: { SMTP_URL: await smtp.start(), WEBHOOK_TIMEOUT_MS: '60000' } });
    db = t.app.get(DataSource);
    merchant = await seedMerchant(t);
    await fund(t, merchant, 100_000);
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    for (const worker of workers) await worker.close();
    await t?.close();
    await receiver.close();
    await smtp.stop();
    await silentSmtp.stop();
  });

  async function endpointAt(path: string): Promise<string> {
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url(path), events: ['reward.created'] });
    expect(res.status).toBe(201);
    return res.body.webhookEndpoint.id;
  }

  it("hands a killed worker's e-mail and webhook delivery to another worker once their 10-s leases run out", async () => {
    const held: ServerResponse[] = [];
    receiver.respond('/dies', (_request, res) => void held.push(res)); // never answered while the first worker lives
    const endpointId = await endpointAt('/dies');
    const to = recipient();

    child = spawnBuilt('worker', [], {
      DATABASE_URL: t.config.databaseUrl,
      QUEUE_PREFIX: t.config.queuePrefix,
      SMTP_URL: await silentSmtp.start(),
      WEBHOOK_TIMEOUT_MS: '60000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    const sent = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }));
    expect(sent.status).toBe(201);
    const rewardId = sent.body.reward.id;

    // The child worker has claimed both: the e-mail is with the silent SMTP server, the delivery with the receiver.
    await eventually(async () => receiver.at('/dies').length === 1 && silentSmtp.connections > 0, 60_000, 200);
    // Both leases are short: at most 10 s ahead (they used to be 2 minutes for e-mail and 70 s for webhooks).
    const [mail] = await db.query(
      `SELECT attempts, leased_until > clock_timestamp() AND leased_until <= clock_timestamp() + interval '10 seconds' AS leased FROM mail_jobs WHERE reward_id = $1`,
      [rewardId],
    );
    expect(mail).toEqual({ attempts: 1, leased: true });
    const [claimed] = await db.query(
      `SELECT attempts, leased_until > clock_timestamp() AND leased_until <= clock_timestamp() + interval '10 seconds' AS leased FROM webhook_deliveries WHERE endpoint_id = $1`,
      [endpointId],
    );
    expect(claimed).toEqual({ attempts: 1, leased: true });

    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
    held.forEach((res) => res.destroy());
    receiver.respond('/dies', 200);
    // The 10 s pass (nobody renews the leases of a dead worker): moved into the past rather than waited for.
    await db.query(`UPDATE mail_jobs SET leased_until = clock_timestamp() - interval '1 second' WHERE reward_id = $1`, [rewardId]);
    await db.query(
      `UPDATE webhook_deliveries SET leased_until = clock_timestamp() - interval '1 second', next_attempt_at = clock_timestamp() - interval '1 second' WHERE endpoint_id = $1`,
      [endpointId],
    );
    workers.push(await startTestWorker(t));

    // The other worker's own sweeps (every 5 s) find both expired leases and send again.
    await eventually(async () => smtp.messages.some((m) => m.to.includes(to.email)), 30_000, 200);
    const [delivery] = await eventually(async () => {
      const rows = await db.query(`SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCEEDED'`, [endpointId]);
      return rows.length ? rows : undefined;
    }, 30_000, 200);
    expect(delivery).toEqual({ status: 'SUCCEEDED', attempts: 2 });
    expect(receiver.at('/dies')).toHaveLength(2);
    // The worker marks the job once the relay has accepted the message, so the sink can have it first.
    const [sentMail] = await eventually(async () => {
      const rows = await db.query(`SELECT status, attempts FROM mail_jobs WHERE reward_id = $1 AND status <> 'PENDING'`, [rewardId]);
      return rows.length ? rows : undefined;
    }, 30_000, 200);
    expect(sentMail).toEqual({ status: 'SENT', attempts: 2 });
  }, 150_000);

  it('lets a live worker keep an attempt that outlasts the lease: the receiver gets it once', async () => {
    // Two workers share the work; the receiver answers only once the attempt has outlived the end of
    // the lease its claim took (the worker renews a lease 3 s after taking it).
    if (workers.length === 0) workers.push(await startTestWorker(t));
    workers.push(await startTestWorker(t));
    const held: ServerResponse[] = [];
    receiver.respond('/slow', (_request, res) => void held.push(res));
    const endpointId = await endpointAt('/slow');
    const sent = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000));
    expect(sent.status).toBe(201);

    await eventually(async () => held.length === 1, 60_000, 100);
    const lease = `SELECT attempts, leased_until FROM webhook_deliveries WHERE endpoint_id = $1`;
    const [claimed] = (await db.query(lease, [endpointId])) as { attempts: number; leased_until: Date }[];
    expect(claimed.attempts).toBe(1);
    // The live worker moves its lease on past where the claim put it, while the receiver still holds the request.
    const renewed = await eventually(async () => {
      const [row] = (await db.query(lease, [endpointId])) as { attempts: number; leased_until: Date }[];
      return row.leased_until.getTime() > claimed.leased_until.getTime() && row;
    }, 20_000, 100);
    expect(renewed.attempts).toBe(1);
    // Neither worker's sweep nor a kick claims it meanwhile: it is not due (a claim would count attempt 2).
    for (const worker of workers) {
      await worker.app.get(DeliverySweep).sweep();
      await worker.app.get(WebhookDeliverer).kick(endpointId);
    }
    held.forEach((res) => res.writeHead(200).end());

    const [delivery] = await eventually(async () => {
      const rows = await db.query(`SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'PENDING'`, [endpointId]);
      return rows.length ? rows : undefined;
    }, 60_000, 200);
    // Attempt 1 is the only one ever claimed: no second request can still be on its way.
    expect(delivery).toEqual({ status: 'SUCCEEDED', attempts: 1 });
    expect(receiver.at('/slow')).toHaveLength(1);
  }, 120_000);
});
