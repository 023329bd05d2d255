import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { eventually, ROOT } from '../support/processes';
import { freePort, isolatedDatabase, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
// Plain JavaScript, preloaded into spawned Node processes (docs/operations.md, "Tests are hermetic").
const outboundGuard = require('../support/outbound-guard') as { childEnv(owner: string | undefined): Record<string, string> };

/**
 * docs/quickstart.md as a newcomer follows it: its `sh` blocks, in order, in one bash started in the
 * repository folder (the CLI runs as `npm run cli`), its `receiver.mjs` saved where it says, against a
 * running service with its worker side. Nothing of the page is rewritten: the service's address and the
 * receiver's port reach it as the variables the page reads (`REWARDS_URL`, `RECEIVER_PORT`), and bash
 * runs with `set -euo pipefail`, so a failing command fails the test.
 */
const PAGE = readFileSync(join(ROOT, 'docs', 'quickstart.md'), 'utf8');

interface Block {
  lang: string;
  title: string | undefined;
  code: string;
}

const blocks: Block[] = [...PAGE.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```$/gm)].map(([, lang, info, code]) => ({
  lang,
  title: /title="([^"]+)"/.exec(info)?.[1],
  code,
}));

describe('docs/quickstart.md', () => {
  let t: TestApp;
  let worker: TestWorker;
  let home: string;
  let shell: ChildProcess | undefined;

  beforeAll(async () => {
    // A database of its own: the page makes its merchant with a fixed e-mail, and a receiver other files' workers must not see.
    t = await startTestApp({ env: await isolatedDatabase() });
    worker = await startTestWorker(t);
    home = mkdtempSync(join(tmpdir(), 'quickstart-'));
  });
  afterAll(async () => {
    if (shell?.pid && shell.exitCode === null) process.kill(-shell.pid, 'SIGKILL');
    await worker?.close();
    await t?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('has the steps the issue asks for: a key, a top-up, a FIXED and a CHOICE send, and a webhook', () => {
    const script = blocks.filter((b) => b.lang === 'sh').map((b) => b.code).join('\n');
    for (const step of ['api-key:create', '/v1/topups', '"type": "FIXED"', '"type": "CHOICE"', '/v1/webhook-endpoints', 'receiver.mjs']) {
      expect(script).toContain(step);
    }
  });

  it('runs as written, from a new merchant to a verified webhook', async () => {
    for (const file of blocks.filter((b) => b.title)) {
      const path = file.title!.replace(/^~/, home);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.code);
    }
    const script = blocks.filter((b) => b.lang === 'sh').map((b) => b.code).join('\n');
    expect(script.length).toBeGreaterThan(0);
    shell = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: ROOT,
      detached: true, // its own process group: the receiver it starts in the background is stopped with it
      env: {
        PATH: process.env.PATH!,
        HOME: home,
        REWARDS_URL: t.baseUrl,
        RECEIVER_PORT: String(await freePort()),
        // What `npm run cli` needs to reach the service's database, and the run's key ring (docs/secrets.md).
        DATABASE_URL: t.config.databaseUrl,
        QUEUE_PREFIX: t.config.queuePrefix,
        ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS!,
        MAIL_OUTBOX_DIR: process.env.MAIL_OUTBOX_DIR!,
        ENV_FILE: '/dev/null',
        LOG_LEVEL: 'silent',
        npm_config_update_notifier: 'false',
        ...outboundGuard.childEnv(process.env.OUTBOUND_GUARD_OWNER),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    shell.stdout!.on('data', (d) => (stdout += d));
    shell.stderr!.on('data', (d) => (stderr += d));
    const failed = () => (shell!.exitCode !== null ? `the page's commands stopped (exit ${shell!.exitCode}):\n${stdout}\n${stderr}` : null);

    await eventually(async () => {
      const failure = failed();
      if (failure) throw new Error(failure);
      return stdout.includes('verified reward.canceled');
    }, 90_000).catch((error: Error) => {
      throw new Error(`${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    });

    const lines = stdout.split('\n');
    // 1. The key works: the account it belongs to.
    expect(JSON.parse(lines.find((l) => l.startsWith('{"account"'))!).account).toMatchObject({ name: 'Acme', currency: 'USD' });
    // 2. The top-up settled.
    expect(JSON.parse(lines.find((l) => l.startsWith('{"topup"'))!).topup).toMatchObject({ amountCents: 10_000, status: 'SUCCEEDED' });
    // 3. The catalog's items of the brand, with the FIXED card the page sends; the FIXED reward is SENT.
    expect(JSON.parse(lines.find((l) => l.startsWith('[{"utid"'))!)).toEqual(expect.arrayContaining([expect.objectContaining({ utid: 'U356303', faceValue: 25 })]));
    expect(lines).toContain('SENT');
    // 4. The CHOICE reward's link.
    expect(lines.some((l) => l.startsWith(`${t.config.publicBaseUrl}/r/`))).toBe(true);
    // 5. The receiver got the ping and the cancel, both with a good signature, and refused nothing.
    expect(lines.some((l) => /^receiver listening on http:\/\/localhost:\d+\/webhooks$/.test(l))).toBe(true);
    expect(lines.some((l) => /^verified ping evt_\w+ /.test(l))).toBe(true);
    const canceled = lines.find((l) => l.startsWith('verified reward.canceled'))!;
    expect(JSON.parse(canceled.split(' ').slice(3).join(' '))).toMatchObject({ status: 'CANCELED', valueCents: 5000 });
    expect(lines).toContain('CANCELED');
    expect(stdout).not.toContain('rejected');
  });
});
