import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { throughRunPooler } from './pooler';
// Plain JavaScript, preloaded into the spawned process as it is (docs/operations.md, "Tests are hermetic").
const outboundGuard = require('./outbound-guard') as { childEnv(owner: string | undefined): Record<string, string> };

export const ROOT = join(__dirname, '..', '..');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a built entry point (dist/apps/<app>/src/main.js) to completion, with a hard time limit. */
export function runBuilt(app: 'api' | 'worker' | 'cli', args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<Finished> {
  const started = Date.now();
  const child = spawnBuilt(app, args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export function spawnBuilt(app: 'api' | 'worker' | 'cli', args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [join(ROOT, 'dist', 'apps', app, 'src', 'main.js'), ...args], {
    cwd: ROOT,
    // The run's key ring (global setup), so spawned processes open what the in-process apps sealed; and
    // the outbound-connection guard (NODE_OPTIONS=--require), recording for the test file that spawns.
    env: {
      PATH: process.env.PATH!,
      LOG_LEVEL: 'silent',
      // Not the developer's .env (read at start, libs/core/src/config/env-file.ts): a test sets what it runs with.
      ENV_FILE: '/dev/null',
      ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS ?? '',
      ...outboundGuard.childEnv(process.env.OUTBOUND_GUARD_OWNER),
      // Through the run's PgBouncer when the run is (test/support/pooler.ts); the process's start applies its defaults.
      ...throughRunPooler(env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Polls until `check` resolves truthy or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
}
