import type { ChildProcess } from 'node:child_process';
import { createServer, Server, Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { eventually, spawnBuilt } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
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
 * process, the built app) leaves both to another worker within seconds; a live worker on a slow
 * receiver keeps its attempt, so the receiver gets it once.
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
    t = await startTestApp({ env: { ...(await isolatedDatabase()), SMTP_URL: await smtp.start(), WEBHOOK_TIMEOUT_MS: '60000' } });
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

  it("hands a killed worker's e-mail and webhook delivery to another worker within seconds", async () => {
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
    const [mail] = await db.query(`SELECT attempts, leased_until IS NOT NULL AS leased FROM mail_jobs WHERE reward_id = $1`, [rewardId]);
    expect(mail).toEqual({ attempts: 1, leased: true });

    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
    held.forEach((res) => res.destroy());
    receiver.respond('/dies', 200);
    const killedAt = Date.now();
    workers.push(await startTestWorker(t));

    // The leases are 10 s and the sweeps run every 5 s; they used to be 2 minutes (e-mail) and 70 s (webhooks).
    await eventually(async () => smtp.messages.some((m) => m.to.includes(to.email)), 30_000, 200);
    const [delivery] = await eventually(async () => {
      const rows = await db.query(`SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCEEDED'`, [endpointId]);
      return rows.length ? rows : undefined;
    }, Math.max(1, 30_000 - (Date.now() - killedAt)), 200);
    expect(delivery).toEqual({ status: 'SUCCEEDED', attempts: 2 });
    expect(receiver.at('/dies')).toHaveLength(2);
    const [sentMail] = await db.query(`SELECT status, attempts FROM mail_jobs WHERE reward_id = $1`, [rewardId]);
    expect(sentMail).toEqual({ status: 'SENT', attempts: 2 });
  }, 150_000);

  it('lets a live worker keep an attempt that outlasts the lease: the receiver gets it once', async () => {
    // Two workers share the work; the receiver takes 15 s to answer, longer than the 10-s lease.
    if (workers.length === 0) workers.push(await startTestWorker(t));
    workers.push(await startTestWorker(t));
    receiver.respond('/slow', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 15_000));
    const endpointId = await endpointAt('/slow');
    const sent = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(1_000));
    expect(sent.status).toBe(201);

    const [delivery] = await eventually(async () => {
      const rows = await db.query(`SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'PENDING'`, [endpointId]);
      return rows.length ? rows : undefined;
    }, 60_000, 200);
    expect(delivery).toEqual({ status: 'SUCCEEDED', attempts: 1 });
    // Long enough for any second claim to have reached the receiver.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.at('/slow')).toHaveLength(1);
  }, 120_000);
});
