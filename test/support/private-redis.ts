import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './test-app';

/**
 * A redis-server of the test's own on a free port, without persistence, that the test may stop and
 * start (the shared Redis on 6379 is never stopped: other suites use it). Stopping is SIGKILL, so
 * what it held is lost, as in a crash.
 */
export class PrivateRedis {
  port = 0;
  private dir = '';
  private child: ChildProcess | null = null;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    // Already running: a second server on the same port would fail to bind, and this one would leak.
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return this;
    this.port ||= await freePort();
    // A directory of its own: a replica writes the snapshot its primary sends (dump.rdb) there even without
    // --save, and the working directory is the checkout's.
    this.dir ||= mkdtempSync(join(tmpdir(), 'rewards-redis-'));
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir], {
      stdio: 'ignore',
    });
    this.child = child;
    await waitUntil(() => accepts(this.port), 10_000);
    return this;
  }

  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** For the end of a test: the server killed, and its directory removed (a `start` after it makes a new one). */
  async dispose(): Promise<void> {
    await this.kill();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = '';
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}
