import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { CREDENTIALS_REVOKED_CHANNEL } from '@app/auth';
import { loadConfig, PgNotifications, prepareInfrastructure, RUNTIME_ROLE } from '@app/core';
import { WEBHOOK_BOOKKEEPING_DB } from '@app/webhooks';
import { DashboardClient } from '../support/dashboard-client';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { POOLED_USER, PrivatePgBouncer } from '../support/private-pgbouncer';
import { eventually } from '../support/processes';
import { choiceReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

/**
 * The service behind PgBouncer in transaction mode (docs/scaling.md, PgBouncer): DATABASE_URL names the
 * pooler, DATABASE_DIRECT_URL the database itself. A pool of 4 server sessions serves the API's and the
 * worker's pools (dozens of client connections); the LISTEN connection and the migrations go direct.
 */
describe('through PgBouncer in transaction mode', () => {
  const POOL_SIZE = 4;
  let pgbouncer: PrivatePgBouncer;
  let env: Record<string, string>;
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let merchant: SeededMerchant;
  let database: string;

  beforeAll(async () => {
    pgbouncer = await new PrivatePgBouncer({ poolSize: POOL_SIZE }).start();
    const direct = process.env.DATABASE_URL!;
    database = new URL(direct).pathname.slice(1);
    env = { DATABASE_URL: pgbouncer.pooled(direct), DATABASE_DIRECT_URL: direct };
    // What every process does first (main.ts): migrations straight to PostgreSQL, then the pooled user's
    // defaults in this database, then the check that a session through the pooler acts as the runtime role.
    await prepareInfrastructure(loadConfig({ ...process.env, ...env }));
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env });
    worker = await startTestWorker(t);
    merchant = await seedMerchant(t);
  });
  afterAll(async () => {
    if (merchant) await expectLedgerInvariants(t.app.get(DataSource), merchant.accountId);
    await worker?.close();
    await t?.close();
    await receiver?.close();
    await pgbouncer?.stop();
  });

  it('serves through the pooler: its sessions act as the runtime role with JIT off, though they carry no options', async () => {
    expect(t.config.databaseUrl).toContain(`:${pgbouncer.port}/`);
    const rows = await t.app.get(DataSource).query(`SELECT session_user AS login, current_user AS role, current_setting('jit') AS jit`);
    expect(rows).toEqual([{ login: POOLED_USER, role: RUNTIME_ROLE, jit: 'off' }]);
    // The pooler refuses a client that sends `options` (PgBouncer 1.18): the service's pools send none, or they could not have served.
    const withOptions = new Client({ connectionString: env.DATABASE_URL, options: '-c jit=off' });
    withOptions.on('error', () => undefined);
    await expect(withOptions.connect()).rejects.toThrow(/unsupported startup parameter/);
  });

  it('a wallet top-up and a send commit through it', async () => {
    await fund(t, merchant, 20_000);
    const res = await t.api.as(merchant.key).post('/v1/rewards', choiceReward(5_000));
    expect(res.status).toBe(201);
    expect(res.body.reward.status).toBe('SENT');
    const wallet = (await t.api.as(merchant.key).get('/v1/wallet')).body.wallet;
    expect(wallet.availableCents).toBe(15_000);
  });

  it('webhooks are delivered, and the bookkeeping sets its own settings in each transaction (SET LOCAL)', async () => {
    const created = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: receiver.url('/hook'), events: ['wallet.credited'] });
    expect(created.status).toBe(201);
    await fund(t, merchant, 1_234);
    const [request] = await eventually(async () => receiver.at('/hook').length > 0 && receiver.at('/hook'));
    expect(verifyWebhook(request, [created.body.secret])).toEqual([true]);
    expect(request.json).toMatchObject({ type: 'wallet.credited', data: { amountCents: 1_234 } });

    const bookkeeping = worker.app.get<DataSource>(WEBHOOK_BOOKKEEPING_DB);
    const settings = `SELECT current_user AS role, current_setting('synchronous_commit') AS sync, current_setting('enable_bitmapscan') AS bitmap`;
    const expected = [{ role: RUNTIME_ROLE, sync: 'off', bitmap: 'off' }];
    expect(await bookkeeping.query(settings)).toEqual(expected);
    expect(await bookkeeping.transaction((manager) => manager.query(settings))).toEqual(expected);
    // The main pool's sessions, through the same pooler, are not left with them.
    expect(await t.app.get(DataSource).query(`SELECT current_setting('synchronous_commit') AS sync`)).toEqual([{ sync: 'on' }]);
  });

  it('a dashboard sign-in makes a session that the next requests are served by', async () => {
    const client = new DashboardClient(t.baseUrl);
    const res = await client.signIn(merchant.email, merchant.password);
    expect(res.status).toBe(201);
    expect((await client.get('/dashboard/api/session')).body.currentAccountId).toBe(merchant.accountId);
    expect((await client.get('/v1/account')).body.account.id).toBe(merchant.accountId);
  });

  it('LISTEN holds a session of its own straight to PostgreSQL', async () => {
    await eventually(async () => t.app.get(PgNotifications, { strict: false }).live(CREDENTIALS_REVOKED_CHANNEL));
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT usename FROM pg_stat_activity WHERE datname = $1 AND application_name = 'listener'`, [database]);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.usename !== POOLED_USER)).toBe(true);
    } finally {
      await admin.end();
    }
  });

  it('is in transaction mode: many client connections share a few server sessions', async () => {
    expect((await pgbouncer.show<{ key: string; value: string }>('CONFIG')).find((r) => r.key === 'pool_mode')?.value).toBe('transaction');
    // Enough requests at once that the API's pool opens many client connections to the pooler.
    const answers = await Promise.all(Array.from({ length: 30 }, () => t.api.as(merchant.readKey).get('/v1/wallet/transactions')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const clients = (await pgbouncer.show<{ database: string; user: string }>('CLIENTS')).filter((c) => c.database === database && c.user === POOLED_USER);
    const servers = (await pgbouncer.show<{ database: string; user: string }>('SERVERS')).filter((s) => s.database === database && s.user === POOLED_USER);
    expect(servers.length).toBeLessThanOrEqual(POOL_SIZE);
    expect(clients.length).toBeGreaterThan(servers.length);
    // Two clients, one after the other, are served by the same server session: no session is a client's own.
    const one = new Client({ connectionString: env.DATABASE_URL });
    const two = new Client({ connectionString: env.DATABASE_URL });
    await one.connect();
    await two.connect();
    try {
      const pids = new Set<number>();
      for (let i = 0; i < 20; i++) for (const c of [one, two]) pids.add((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      expect(pids.size).toBeLessThanOrEqual(POOL_SIZE);
    } finally {
      await one.end();
      await two.end();
    }
  });
});
