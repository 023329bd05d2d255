'use strict';
// The private system under test: a PostgreSQL cluster (initdb into a temporary folder), a Redis, two
// API and two worker processes of the built app, all on free loopback ports. Each part can be killed
// and started again by a fault; `stopAll` stops whatever is running, also on Ctrl-C or an error.
const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ROOT, log, sleep } = require('./util');
const outboundGuard = require('../../test/support/outbound-guard');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function findPgBin() {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error('initdb not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)');
  return path.join(base, versions[0], 'bin');
}

/**
 * PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` system user
 * (its folder is chowned to it) and every pg_ctl call runs through runuser.
 */
class Postgres {
  /** `name`: the cluster's folder under `tmp` (and its log's name, but for the first cluster's `postgres.log`). */
  constructor(tmp, name = 'pg') {
    this.bin = findPgBin();
    this.dir = path.join(tmp, name);
    this.logFile = path.join(tmp, name === 'pg' ? 'postgres.log' : `${name}.log`);
    this.asRoot = process.getuid && process.getuid() === 0;
    this.running = false;
  }

  command(tool, args) {
    const file = path.join(this.bin, tool);
    return this.asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  }

  /** Synchronous: for initdb and the process 'exit' handler. */
  run(tool, args) {
    const [cmd, argv] = this.command(tool, args);
    return execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  }

  /** Asynchronous, so the run's own servers (SMTP sink, webhook receiver) keep answering meanwhile. */
  runAsync(tool, args) {
    const [cmd, argv] = this.command(tool, args);
    return new Promise((resolve, reject) => {
      execFile(cmd, argv, { timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${tool}: ${stderr || error.message}`)) : resolve(stdout)));
    });
  }

  async init() {
    await this.prepareFolder();
    this.run('initdb', ['-D', this.dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  }

  /**
   * A streaming replica of `primary` (running): a base backup of it with `-R`, so this cluster starts
   * as a hot standby that follows it (docs/scaling.md, Read replica). Read-only; `start()` it.
   */
  async standbyOf(primary) {
    await this.prepareFolder();
    await this.runAsync('pg_basebackup', ['-D', this.dir, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
  }

  async prepareFolder() {
    this.port = await freePort();
    fs.mkdirSync(this.dir, { mode: 0o700 });
    fs.writeFileSync(this.logFile, '');
    if (this.asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      fs.chownSync(this.dir, uid, gid);
      fs.chownSync(this.logFile, uid, gid);
    }
    this.url = `postgres://postgres@127.0.0.1:${this.port}/rewards`;
    this.adminUrl = `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start() {
    // fsync=off saves the shared disk; a crash of the server (not of the machine) loses nothing with it,
    // since every commit is written to the OS before it returns (synchronous_commit stays on).
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`;
    await this.runAsync('pg_ctl', ['-D', this.dir, '-l', this.logFile, '-o', options, '-w', '-t', '60', 'start']);
    this.running = true;
  }

  /** `-m immediate`: the server processes quit without a checkpoint, as in a crash; the next start recovers from WAL. */
  async crash() {
    await this.runAsync('pg_ctl', ['-D', this.dir, '-m', 'immediate', '-w', 'stop']);
    this.running = false;
  }

  async stop() {
    if (!fs.existsSync(path.join(this.dir, 'postmaster.pid'))) return;
    try {
      await this.runAsync('pg_ctl', ['-D', this.dir, '-m', 'fast', '-w', '-t', '20', 'stop']);
    } catch {
      await this.runAsync('pg_ctl', ['-D', this.dir, '-m', 'immediate', '-w', 'stop']);
    }
    this.running = false;
  }
}

/** A managed child process: output to a log file, kill -9, start again with the same settings. */
class Child {
  constructor(name, tmp, command, args, env) {
    this.name = name;
    this.command = command;
    this.args = args;
    this.env = env;
    this.logFile = path.join(tmp, `${name}.log`);
    this.child = null;
  }

  get alive() {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  spawn() {
    const out = fs.openSync(this.logFile, 'a');
    fs.writeSync(out, `\n--- started ${new Date().toISOString()}\n`);
    this.child = spawn(this.command, this.args, { cwd: ROOT, env: this.env, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    this.child.on('exit', (code, signal) => {
      // An exit during start is reported by start() itself.
      if (this.expectExit || this.starting) return;
      log(`${this.name} exited unexpectedly (${code ?? signal}); see ${this.logFile}`);
      if (this.onUnexpectedExit) this.onUnexpectedExit(this, code ?? signal);
    });
    this.expectExit = false;
  }

  kill9() {
    if (!this.alive) return;
    this.expectExit = true;
    this.child.kill('SIGKILL');
  }

  async stop(graceMs = 10_000) {
    if (!this.alive) return;
    this.expectExit = true;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.alive && this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Synchronous last resort (process 'exit' handler). */
  killNow() {
    if (this.alive) {
      this.expectExit = true;
      try {
        this.child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  tail(lines = 15) {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

class Redis extends Child {
  constructor(tmp, port) {
    super('redis', tmp, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmp], process.env);
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
  }

  async start() {
    this.spawn();
    const deadline = Date.now() + 15_000;
    while (!(await portOpen(this.port))) {
      if (!this.alive || Date.now() > deadline) throw new Error(`redis did not start; see ${this.logFile}`);
      await sleep(100);
    }
  }
}

class AppProcess extends Child {
  constructor(name, tmp, entry, env, port) {
    super(name, tmp, process.execPath, [entry], env);
    this.port = port;
    this.base = port ? `http://127.0.0.1:${port}` : null;
  }

  /** An API is up when /health/ready answers 200; a worker when it logged its start line (at info level). */
  async start(timeoutMs = 120_000) {
    const logStart = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    this.starting = true;
    try {
      this.spawn();
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (!this.alive) throw new Error(`${this.name} exited during start:\n${this.tail()}`);
        if (this.port) {
          if (await healthReady(this.base)) return;
        } else {
          const text = fs.readFileSync(this.logFile, 'utf8').slice(logStart);
          if (text.includes('Worker started')) return;
        }
        await sleep(250);
      }
      this.kill9();
      throw new Error(`${this.name} not ready in ${timeoutMs / 1000} s:\n${this.tail()}`);
    } finally {
      this.starting = false;
    }
  }
}

async function healthReady(base) {
  const { request } = require('./http');
  try {
    const res = await request(`${base}/health/ready`, { timeoutMs: 3000 });
    return res.status === 200;
  } catch {
    return false;
  }
}

class Cluster {
  constructor({ keep }) {
    this.keep = keep;
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rewards-chaos-'));
    fs.chmodSync(this.tmp, 0o755);
    this.pg = new Postgres(this.tmp);
    this.apis = [];
    this.workers = [];
    this.redis = null;
    this.stopped = false;
    this.crashes = [];
  }

  get children() {
    return [...this.apis, ...this.workers, ...(this.redis ? [this.redis] : [])];
  }

  async start({ smtpUrl }) {
    log(`temporary folder ${this.tmp}`);
    await this.pg.init();
    await this.pg.start();
    log(`PostgreSQL ${path.basename(path.dirname(this.pg.bin))} on port ${this.pg.port}`);
    this.redis = new Redis(this.tmp, await freePort());
    await this.redis.start();
    log(`Redis on port ${this.redis.port}`);
    const apiPorts = [await freePort(), await freePort()];
    this.env = {
      ...pick(process.env, ['PATH', 'HOME', 'LANG', 'TZ']),
      NODE_ENV: 'development',
      // Not the developer's .env: the run is configured here alone (docs/operations.md, Environment variables).
      ENV_FILE: '/dev/null',
      DATABASE_URL: this.pg.url,
      REDIS_URL: this.redis.url,
      QUEUE_PREFIX: 'chaos',
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPorts[0]}`,
      PAYMENTS_MODE: 'fake',
      SUPPLIER: 'sandbox',
      SMTP_URL: smtpUrl,
      MAIL_OUTBOX_DIR: path.join(this.tmp, 'outbox'),
      // Every client of the workload comes from 127.0.0.1 and uses a few keys: the limits are not under test.
      RATE_LIMIT_PER_MINUTE: '1000000',
      REDEMPTION_RATE_LIMIT_PER_MINUTE: '1000000',
      EXPIRY_SWEEP_INTERVAL_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_MAX_ATTEMPTS: '12',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
      // Every process of the run is under the tests' outbound-connection guard (docs/operations.md, "Tests are hermetic").
      ...outboundGuard.childEnv('chaos run'),
      [outboundGuard.RECORD_ENV]: this.guardRecordPath(),
    };
    const apiEntry = path.join(ROOT, 'dist/apps/api/src/main.js');
    const workerEntry = path.join(ROOT, 'dist/apps/worker/src/main.js');
    this.apis = apiPorts.map((port, i) => new AppProcess(`api${i + 1}`, this.tmp, apiEntry, { ...this.env, PORT: String(port), RUN_WORKERS: 'false' }, port));
    this.workers = [1, 2].map((i) => new AppProcess(`worker${i}`, this.tmp, workerEntry, { ...this.env, LOG_LEVEL: 'info' }, null));
    // The first process creates the database and migrates; the others then start side by side.
    await this.apis[0].start();
    await Promise.all([this.apis[1].start(), ...this.workers.map((w) => w.start())]);
    log(`APIs on ${this.apis.map((a) => a.port).join(', ')}, two workers`);
    // A supervisor, as systemd or Kubernetes would be: a process that dies on its own is recorded (an
    // availability finding) and started again, so the run goes on.
    for (const p of [...this.apis, ...this.workers]) p.onUnexpectedExit = (proc, how) => this.restartCrashed(proc, how);
  }

  async restartCrashed(proc, how) {
    this.crashes.push({ name: proc.name, at: Date.now(), how });
    while (!this.stopped && !proc.alive) {
      await sleep(1000);
      if (this.stopped || proc.alive) return;
      try {
        await proc.start(60_000);
        log(`${proc.name} restarted by the supervisor`);
      } catch (error) {
        log(`${proc.name} restart failed: ${error.message.split('\n')[0]}`);
      }
    }
  }

  /** One operator command of the built CLI; resolves its JSON output. */
  cli(args) {
    return new Promise((resolve, reject) => {
      execFile(process.execPath, [path.join(ROOT, 'dist/apps/cli/src/main.js'), ...args], { cwd: ROOT, env: this.env, timeout: 60_000 }, (error, stdout, stderr) => {
        if (error) return reject(new Error(`cli ${args[0]}: ${stderr || error.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop()));
      });
    });
  }

  guardRecordPath() {
    return path.join(this.tmp, 'outbound-guard.jsonl');
  }

  /** What the outbound-connection guard of the run's processes recorded (read before stopAll removes the folder). */
  guardRecord() {
    return outboundGuard.readRecord(this.guardRecordPath());
  }

  async stopAll() {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.children.map((c) => c.stop().catch(() => c.killNow())));
    try {
      await this.pg.stop();
    } catch (error) {
      log(`stopping PostgreSQL: ${error.message}`);
    }
    if (this.keep) log(`kept ${this.tmp} (logs, data folder)`);
    else fs.rmSync(this.tmp, { recursive: true, force: true });
    this.finished = true;
  }

  /**
   * For the process 'exit' handler, where nothing asynchronous can run: also when an orderly stopAll
   * was cut short (a second Ctrl-C, an exception while stopping).
   */
  stopAllNow() {
    if (this.finished) return;
    this.stopped = true;
    this.finished = true;
    for (const c of this.children) c.killNow();
    try {
      this.pg.run('pg_ctl', ['-D', this.pg.dir, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // not running
    }
    if (!this.keep) fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

function pick(obj, keys) {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));
}

module.exports = { Cluster, Postgres, freePort, portOpen };
