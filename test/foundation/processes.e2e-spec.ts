import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { randomToken } from '@app/core';
import { eventually, runBuilt, spawnBuilt } from '../support/processes';
import { freePort, startTestApp } from '../support/test-app';

/** These run the built processes (`npm test` builds first), as `npm start` and the CLI run them. */
const env = () => ({ DATABASE_URL: process.env.DATABASE_URL!, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-proc` });

describe('start-up', () => {
  it('exits at once with one line naming PostgreSQL when it cannot be reached', async () => {
    const run = await runBuilt('api', [], { DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/rewards' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^PostgreSQL is not reachable at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/rewards \(ECONNREFUSED\): start it with `docker compose -f docker\/compose\.yml up -d postgres redis` or your OS package\.\n$/,
    );
    expect(run.ms).toBeLessThan(10_000);
  });

  it('exits at once with one line naming Redis when it cannot be reached', async () => {
    const run = await runBuilt('worker', [], { ...env(), REDIS_URL: 'redis://127.0.0.1:1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Redis is not reachable at redis:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\): start it with .*\n$/);
    expect(run.ms).toBeLessThan(10_000);
  });

  it('refuses a bad variable with one line naming it', async () => {
    const run = await runBuilt('api', [], { PORT: 'eighty' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")\n');
  });

  it('SUPPLIER=tango without its settings stops the start with one line naming every missing one', async () => {
    for (const app of ['api', 'worker'] as const) {
      const run = await runBuilt(app, [], { ...env(), SUPPLIER: 'tango', TANGO_PLATFORM_NAME: 'RewardsTestPlatform' });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'Invalid configuration: TANGO_PLATFORM_KEY, TANGO_CUSTOMER_IDENTIFIER, TANGO_ACCOUNT_IDENTIFIER are required when SUPPLIER=tango\n',
      );
    }
  });

  it('refuses to start in production without ENCRYPTION_KEYS, with one line naming it', async () => {
    for (const app of ['api', 'worker', 'cli'] as const) {
      const run = await runBuilt(app, app === 'cli' ? ['encryption:rotate'] : [], { ...env(), NODE_ENV: 'production', ENCRYPTION_KEYS: '' });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^Invalid configuration: ENCRYPTION_KEYS is required when NODE_ENV=production[^\n]*\n$/);
    }
  });

  it('creates a missing database, migrates it, serves, and stops cleanly on SIGTERM', async () => {
    const name = `rewards_fresh_${randomToken(6).toLowerCase()}`;
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const port = await freePort();
    const child = spawnBuilt('api', [], { ...env(), DATABASE_URL: url.toString(), PORT: String(port) });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    try {
      // Ready, and the worker side's start-up refresh has stored the sandbox rates (none exist in a new database).
      const ready = await eventually(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
        const body = res.status === 200 ? ((await res.json()) as { fx: { status: string } }) : undefined;
        return body?.fx.status === 'fresh' ? body : undefined;
      }, 30_000);
      expect(ready).toEqual({
        status: 'ok',
        checks: { postgres: 'ok', redis: 'ok' },
        supplier: 'closed',
        fx: { source: 'sandbox', status: 'fresh', asOf: expect.any(String) },
      });
      expect((await fetch(`http://127.0.0.1:${port}/docs`)).status).toBe(200);
      // The files the libs read at run time ship with the build (nest-cli.json, assets).
      const script = await fetch(`http://127.0.0.1:${port}/r/assets/redeem.js`);
      expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(await script.text()).toBe(readFileSync(join(__dirname, '../../libs/redemption/src/assets/redeem.js'), 'utf8'));

      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
    } finally {
      child.kill('SIGKILL');
      const admin = new Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      const tables = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
      expect(tables.rowCount).toBe(1);
    }
  });

  it('npm start runs the worker side on a thread of the same process: a FIXED reward sent over HTTP is handed to it, issued and mailed, and SIGTERM lets it finish', async () => {
    const port = await freePort();
    const outbox = mkdtempSync(join(tmpdir(), 'start-outbox-'));
    const processEnv = { ...env(), QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-start`, MAIL_OUTBOX_DIR: outbox };
    const child = spawnBuilt('api', [], { ...processEnv, PORT: String(port), RUN_WORKERS: 'true' });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const base = `http://127.0.0.1:${port}`;
    try {
      await eventually(async () => (await fetch(`${base}/health/ready`)).status === 200 || undefined, 30_000);
      const cliRun = async (...args: string[]) => JSON.parse((await runBuilt('cli', args, processEnv)).stdout);
      const { accountId } = await cliRun('merchant:create', '--name', 'Start Co', '--email', `start-${randomToken(6)}@example.test`, '--password', 'a long enough password');
      const { key } = await cliRun('api-key:create', '--account', accountId, '--scopes', 'read,write');
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      expect((await call('POST', '/v1/topups', { amountCents: 10_000 })).status).toBe(201);
      const catalog = await call('GET', '/v1/catalog?currency=USD');
      const item = catalog.body.brands
        .filter((b: { brandKey: string }) => b.brandKey !== 'test-failure')
        .flatMap((b: { items: { utid: string; valueType: string; faceValue: number }[] }) => b.items)
        .find((i: { valueType: string }) => i.valueType === 'FIXED_VALUE');
      const sent = await call('POST', '/v1/rewards', {
        type: 'FIXED',
        utid: item.utid,
        valueCents: Math.round(item.faceValue * 100),
        recipient: { email: 'thread@example.test', firstName: 'Ada' },
      });
      expect(sent.status).toBe(201);
      const sentAt = Date.now();
      // Issuance and the e-mail are the worker side's: they happen with no other process running.
      const issued = await eventually(async () => {
        const got = await call('GET', `/v1/rewards/${sent.body.reward.id}`);
        return got.body.reward.issuedCards[0]?.status === 'ISSUED' ? got.body.reward : undefined;
      }, 20_000);
      expect(issued.issuedCards[0].credentials).toBeTruthy();
      await eventually(async () => readdirSync(outbox).some((f) => f.endsWith('.eml')) || undefined, 20_000);
      // Through the hand-off, not the safety net: the request thread posts the jobs to the worker
      // thread, which enqueues them at once; the sweeper would only take work left 30 s without a job.
      expect(Date.now() - sentAt).toBeLessThan(25_000);

      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
    } finally {
      child.kill('SIGKILL');
      rmSync(outbox, { recursive: true, force: true });
    }
  });
});

describe('WORKER_THREAD_NICE (docs/operations.md, Processes)', () => {
  /** The nice value of every task (thread) of a process, as the kernel's scheduler sees them. */
  const niceOfTasks = (pid: number) =>
    readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });

  // Threads have nice values of their own on Linux only.
  (existsSync('/proc/thread-self') ? it : it.skip)('npm start lowers its worker thread alone; the request thread and the shared threads (libuv pool, V8) keep the process’s priority, and it serves', async () => {
    const port = await freePort();
    const child = spawnBuilt('api', [], { ...env(), QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-nice`, PORT: String(port), RUN_WORKERS: 'true', WORKER_THREAD_NICE: '5' });
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200 || undefined, 30_000);
      const base = niceOfTasks(child.pid!)[0]; // the first task is the process's main thread: the request thread
      const nices = niceOfTasks(child.pid!);
      expect(nices.filter((nice) => nice !== base)).toEqual([Math.min(19, base + 5)]);
      expect(nices.length).toBeGreaterThan(5);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('operator CLI', () => {
  const cli = (...args: string[]) => runBuilt('cli', args, env());
  const json = (stdout: string) => {
    expect(stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(stdout);
  };

  it('merchant:create, api-key:create and api-key:revoke work end to end against the API', async () => {
    const email = `Owner-${randomToken(4)}@Example.test`;
    const created = await cli('merchant:create', '--name', 'CLI Co', '--email', email, '--password', 'a long enough password', '--currency', 'gbp');
    expect(created.code).toBe(0);
    const merchant = json(created.stdout);
    expect(merchant).toEqual({ accountId: expect.stringMatching(/^acct_/), userId: expect.stringMatching(/^usr_/) });

    // The same e-mail (any case) reuses the user, who now owns a second account.
    const second = json((await cli('merchant:create', '--name', 'CLI Two', '--email', email.toLowerCase(), '--password', 'another long password')).stdout);
    expect(second.userId).toBe(merchant.userId);
    expect(second.accountId).not.toBe(merchant.accountId);

    const keyRun = await cli('api-key:create', '--account', merchant.accountId, '--scopes', 'read', '--name', 'reporting');
    expect(keyRun.code).toBe(0);
    const key = json(keyRun.stdout);
    expect(key).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^sk_/) });

    const t = await startTestApp();
    try {
      const res = await t.api.as(key.key).get('/v1/account');
      expect(res.status).toBe(200);
      expect(res.body.account).toMatchObject({ id: merchant.accountId, name: 'CLI Co', currency: 'GBP' });
      expect((await t.api.as(key.key).patch('/v1/account/branding', {})).status).toBe(403);

      const revoked = json((await cli('api-key:revoke', '--id', key.id)).stdout);
      expect(revoked).toEqual({ id: key.id, revokedAt: expect.any(String) });
      expect((await t.api.as(key.key).get('/v1/account')).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it.each([
    [['api-key:create', '--account', 'acct_missing', '--scopes', 'read'], /Account not found/],
    [['api-key:create', '--account', 'acct_x', '--scopes', 'admin'], /scopes/],
    [['api-key:revoke', '--id', 'key_missing'], /API key not found/],
    [['merchant:create', '--name', 'X', '--email', 'not-an-email', '--password', 'long enough pw'], /email/],
    [['merchant:create', '--name', 'X'], /missing --email, --password/],
    [['no-such-command'], /usage/],
  ])('%j fails with a message on stderr and a non-zero exit', async (args, message) => {
    const run = await cli(...args);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
