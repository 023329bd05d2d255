import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { DashboardClient } from '../support/dashboard-client';
import { eventually, ROOT, spawnBuilt } from '../support/processes';
import { freePort, seedMerchant, startTestApp, startTestWorker } from '../support/test-app';
// Plain JavaScript, preloaded into spawned Node processes (docs/operations.md, "Tests are hermetic").
const outboundGuard = require('../support/outbound-guard') as { childEnv(owner: string | undefined): Record<string, string> };

/**
 * What a newcomer trips over on the first run (README, Set up): whether `.env` is read, where the
 * e-mails went, where the dashboard is, why a sign-in at 127.0.0.1 fails, and how long an
 * Idempotency-Key counts. Built processes run as `npm start` and `npm run cli` run them.
 */
describe('setting up', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'setup-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("npm start's first line names the dashboard and the API reference, and the .env it read (the environment winning over it)", async () => {
    const port = await freePort();
    // PUBLIC_BASE_URL only in the file; PORT in both, where the environment's must win.
    writeFileSync(join(dir, '.env'), `# a developer's settings\nPUBLIC_BASE_URL=http://localhost:${port}\nPORT=1\n`);
    const child = spawnBuilt('api', [], {
      DATABASE_URL: process.env.DATABASE_URL!,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-setup`,
      PORT: String(port),
      RUN_WORKERS: 'false',
      LOG_LEVEL: 'info',
      ENV_FILE: join(dir, '.env'),
    });
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    try {
      const line = await eventually(async () => stdout.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => /^API listening/.test(l.msg ?? '')), 30_000);
      expect(line.msg).toBe(
        `API listening on http://localhost:${port}: the dashboard at http://localhost:${port}/dashboard, the API reference at ` +
          `http://localhost:${port}/docs (workers off; settings from ${join(dir, '.env')} and the environment)`,
      );
      // Listening where the environment said, not the file's PORT=1.
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('without a .env the line says the settings came from the environment alone', async () => {
    const port = await freePort();
    const child = spawnBuilt('api', [], {
      DATABASE_URL: process.env.DATABASE_URL!,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-setup`,
      PORT: String(port),
      RUN_WORKERS: 'false',
      LOG_LEVEL: 'info',
      ENV_FILE: '',
    });
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    try {
      // The working directory is the repository, which has no .env in CI (it is git-ignored).
      const line = await eventually(async () => stdout.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => /^API listening/.test(l.msg ?? '')), 30_000);
      if (!existsSync(join(ROOT, '.env'))) expect(line.msg).toMatch(/; settings from the environment \(no \.env\)\)$/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an ENV_FILE naming a missing file stops the start with one line', async () => {
    const child = spawnBuilt('cli', ['mail:list'], { ENV_FILE: join(dir, 'missing.env') });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(`Invalid configuration: ENV_FILE names ${join(dir, 'missing.env')}, which does not exist\n`);
  });

  it('`npm run cli -- mail:list` lists the outbox newest first (to, subject, file), its folder read from the .env of the working directory', async () => {
    const outbox = join(dir, 'outbox');
    mkdirSync(outbox);
    // Two real e-mails, written by the mailer as `npm start` writes them without SMTP_URL.
    const t = await startTestApp({ env: { MAIL_OUTBOX_DIR: outbox } });
    const worker = await startTestWorker(t);
    try {
      const merchant = await seedMerchant(t, { name: 'Café Zoë' });
      const api = t.api.as(merchant.key);
      expect((await api.post('/v1/topups', { amountCents: 10_000 })).status).toBe(201);
      for (const [email, utid] of [['first@example.test', 'U784273'], ['second@example.test', 'U356303']]) {
        const sent = await api.post('/v1/rewards', { type: 'FIXED', utid, valueCents: utid === 'U784273' ? 1000 : 2500, recipient: { email, firstName: 'Ada' } });
        expect(sent.status).toBe(201);
        await eventually(async () => readdirSync(outbox).some((name) => readFileSync(join(outbox, name), 'utf8').includes(`To: ${email}`)));
      }
    } finally {
      await worker.close();
      await t.close();
    }
    writeFileSync(join(dir, '.env'), 'MAIL_OUTBOX_DIR=./outbox\n');

    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), 'mail:list'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH!,
        DATABASE_URL: process.env.DATABASE_URL!,
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-setup`,
        ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS!,
        ...outboundGuard.childEnv(process.env.OUTBOUND_GUARD_OWNER),
      },
      timeout: 30_000,
    });
    const listed = JSON.parse(stdout);
    expect(listed.outbox).toBe(outbox);
    expect(listed.messages.map((m: { to: string; subject: string }) => [m.to, m.subject])).toEqual([
      ['second@example.test', 'Café Zoë sent you a $25.00 Amazon.com gift card'],
      ['first@example.test', 'Café Zoë sent you a $10.00 Amazon.com gift card'],
    ]);
    for (const message of listed.messages) expect(readFileSync(message.file, 'utf8')).toContain(`To: ${message.to}`);
  });

  it('a sign-in from another origin (127.0.0.1 for localhost) is refused with the address to use', async () => {
    const t = await startTestApp();
    try {
      const merchant = await seedMerchant(t);
      const other = t.baseUrl.replace('127.0.0.1', 'localhost');
      const res = await new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: merchant.email, password: merchant.password }, { headers: { origin: other } });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        `This request comes from another origin than the service's own (${t.baseUrl}). Open the dashboard at ${t.baseUrl}/dashboard ` +
          '(the PUBLIC_BASE_URL) and sign in there.',
      );
    } finally {
      await t.close();
    }
  });

  it('docs/idempotency.md and the contract say in the same words how long an Idempotency-Key counts', () => {
    const contract = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));
    const descriptions: string[] = ['/v1/rewards', '/v1/rewards/bulk'].map(
      (path) => contract.paths[path].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key').description,
    );
    const retention = descriptions.map((description) => /Keys do not expire: [^]*$/.exec(description)?.[0]);
    expect(retention[0]).toBeDefined();
    expect(retention[1]).toBe(retention[0]);
    expect(readFileSync(join(ROOT, 'docs', 'idempotency.md'), 'utf8').replace(/\s+/g, ' ')).toContain(retention[0]);
  });
});
