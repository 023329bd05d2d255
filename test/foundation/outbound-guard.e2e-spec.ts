import { spawn } from 'node:child_process';
import { promises as dnsPromises, lookup } from 'node:dns';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { connect, Socket } from 'node:net';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { ROOT } from '../support/processes';

/**
 * The outbound-connection guard (test/support/outbound-guard.js; docs/operations.md, "Tests are
 * hermetic"): every test file runs with it, and so does every process a test spawns. These prove it
 * refuses what leaves the machine before a packet is sent, lets the loopback through, and fails the
 * test that tried even when the code swallowed the error. Nothing here reaches the internet: the
 * guard answers before any I/O.
 */
const guard = require('../support/outbound-guard') as {
  takeRefusals(owner: string): { what: string; pid: number }[];
  expecting<T>(attempt: () => Promise<T>): Promise<T>;
  childEnv(owner: string, options: { expected: boolean }): Record<string, string>;
};

const PUBLIC = '93.184.215.14';
const testPath = expect.getState().testPath!;

/** Takes this file's refusals (so they do not fail this test: here they are the point). */
const refusals = () => guard.takeRefusals(testPath).map((r) => r.what);

/** Whether `attempt` fails with the guard's error before the event loop reaches its I/O phase. */
function refusedBeforeAnyIo(attempt: () => Promise<unknown>): Promise<{ code?: string; beforeIo: boolean }> {
  // Refusals provoked here are counted apart in the run's account (test/support/summary-reporter.js).
  return guard.expecting(async () => {
    let ioPhase = false;
    setImmediate(() => (ioPhase = true));
    try {
      await attempt();
      return { code: 'connected', beforeIo: !ioPhase };
    } catch (error) {
      const e = error as { code?: string; cause?: { code?: string } };
      return { code: e.code ?? e.cause?.code, beforeIo: !ioPhase };
    }
  });
}

/** Resolves once the socket connects (and closes it), rejects with its error. */
const socketOutcome = (socket: Socket) =>
  new Promise<void>((resolve, reject) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });

describe('outbound-connection guard', () => {
  afterEach(() => expect(refusals()).toEqual([]));

  it.each<[string, () => Promise<unknown>, string]>([
    ['a TCP connection to a public address', () => socketOutcome(connect(443, PUBLIC)), `connection to ${PUBLIC}:443`],
    ['a TLS connection to a public name', () => socketOutcome(tlsConnect({ host: 'example.com', port: 443 })), 'connection to example.com:443 (a DNS look-up of example.com)'],
    ['fetch (undici) to a public address', () => fetch(`https://${PUBLIC}/`), `connection to ${PUBLIC}:443`],
    ['a DNS look-up of a public name (promises)', () => dnsPromises.lookup('example.com'), 'DNS lookup of example.com'],
    ['a DNS look-up of a public name (callback)', () => new Promise((resolve, reject) => lookup('example.com', (e, a) => (e ? reject(e) : resolve(a)))), 'DNS lookup of example.com'],
    ['a DNS query to the name servers', () => dnsPromises.resolve4('example.com'), 'DNS resolve4 of example.com'],
  ])('refuses %s before any I/O, and records it', async (_what, attempt, recorded) => {
    expect(await refusedBeforeAnyIo(attempt)).toEqual({ code: 'EHERMETIC', beforeIo: true });
    expect(refusals()).toEqual([expect.stringContaining(recorded)]);
  });

  describe('the loopback', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_req, res) => res.end('hello'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('lets connections to 127.0.0.1 and localhost through, and look-ups of localhost', async () => {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('hello');
      expect(await (await fetch(`http://localhost:${port}/`)).text()).toBe('hello');
      expect((await dnsPromises.lookup('localhost')).address).toMatch(/^(127\.|::1$)/);
    });

    it('checks what a caller-supplied look-up answers (the webhook client pins its address this way)', async () => {
      const pinned =
        (address: string): LookupFunction =>
        (_host, options, cb) =>
          options.all ? cb(null, [{ address, family: 4 }]) : cb(null, address, 4);
      await socketOutcome(connect({ host: 'hooks.example.com', port, lookup: pinned('127.0.0.1') }));
      expect(await refusedBeforeAnyIo(() => socketOutcome(connect({ host: 'hooks.example.com', port, lookup: pinned(PUBLIC) })))).toMatchObject({
        code: 'EHERMETIC',
      });
      expect(refusals()).toEqual([`connection to hooks.example.com:${port} (resolved to ${PUBLIC})`]);
    });
  });

  it('a spawned process carries the guard (main thread and worker threads) and records for the file that spawned it', async () => {
    const script = `
      const { Worker } = require('node:worker_threads');
      const attempt = () => new Promise((r) => require('node:net').connect(443, '${PUBLIC}').on('error', (e) => r(e.code)));
      attempt().then(async (main) => {
        const thread = await new Promise((r) => new Worker(${JSON.stringify(`require('node:net').connect(80, '${PUBLIC}').on('error', (e) => require('node:worker_threads').parentPort.postMessage(e.code))`)}, { eval: true }).once('message', r));
        process.stdout.write(main + ' ' + thread);
      });`;
    const out = await run(process.execPath, ['-e', script], guard.childEnv(testPath, { expected: true }));
    expect(out.stdout).toBe('EHERMETIC EHERMETIC');
    expect(refusals().sort()).toEqual([`connection to ${PUBLIC}:443`, `connection to ${PUBLIC}:80`]);
  });

  describe('a test run (Jest, as `npm test` runs it)', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'outbound-guard-'));
    writeFileSync(
      join(fixture, 'swallows.test.js'),
      `test('a worker that swallows a refused connection', async () => {
         await new Promise((resolve) => require('node:net').connect(443, '${PUBLIC}').on('error', resolve));
       });
       test('a test that stays home', () => {});`,
    );
    // Run without the guard, so it must not try to leave the machine.
    writeFileSync(join(fixture, 'home.test.js'), `test('a test that stays home', () => {});`);
    const jest = (environment: string, file: string) => {
      const config = { rootDir: fixture, testEnvironment: environment, testMatch: [`**/${file}`], transform: {}, reporters: ['default', join(ROOT, 'test/support/summary-reporter.js')] };
      return run(process.execPath, [join(ROOT, 'node_modules/jest/bin/jest.js'), '--ci', '--watchman=false', '--config', JSON.stringify(config)], {
        OUTBOUND_GUARD_RECORD: join(mkdtempSync(join(tmpdir(), 'outbound-guard-record-')), 'record.jsonl'),
      });
    };

    it('fails the test that made the connection, naming the address, and says so in the last lines', async () => {
      const out = await jest(join(ROOT, 'test/support/hermetic-environment.js'), 'swallows.test.js');
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('✕ a worker that swallows a refused connection');
      expect(out.stderr).toContain('✓ a test that stays home');
      expect(out.stderr).toContain(`- connection to ${PUBLIC}:443`);
      expect(out.stderr.trimEnd().split('\n').slice(-3)).toEqual([
        'outbound-connection guard: active in 1 test files, 1 refused connections',
        expect.stringMatching(new RegExp(`^  refused: connection to ${PUBLIC.replace(/\./g, '\\.')}:443 \\(${join(fixture, 'swallows.test.js')}, pid \\d+\\)$`)),
        '1 passed, 1 failed',
      ]);
    }, 60_000);

    it('fails the run when a test file ran without the guard', async () => {
      const out = await jest('node', 'home.test.js');
      expect(out.code).toBe(1);
      expect(out.stderr.trimEnd().split('\n').slice(-3)).toEqual([
        'outbound-connection guard: NOT active in 1 of 1 test files',
        `  - ${join(fixture, 'home.test.js')}`,
        '1 passed, 0 failed',
      ]);
    }, 60_000);
  });
});

function run(command: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
