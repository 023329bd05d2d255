'use strict';
// The service under test: `npm start`'s built entry point on a fresh database, started with the
// bench agent preloaded (bench/agent.js, which answers capture/stats/profiler commands over IPC),
// paused while the ceiling replays, and stopped at the end. Also its operator CLI and an HTTP helper.
const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const Redis = require('ioredis');
const { Client } = require('pg');
const { ROOT, BASE, DB_NAME, PG, TMP, SERVICE_ENV, NODE_ARGS, APPLICATION_NAME, log, sleep } = require('./config');

/** The node flags of `npm start` (package.json), so the bench runs the service as it ships. */
const START_FLAGS = require('../package.json').scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));

function buildIfNeeded() {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: 'inherit' });
}

class Service {
  constructor(child) {
    this.child = child;
    this.pid = child.pid;
    this.paused = false;
    this.replySeq = 0;
    this.pendingReplies = new Map();
    this.logFile = path.join(TMP, 'service.log');
    child.on('message', (msg) => {
      if (msg && msg.reply && this.pendingReplies.has(msg.reply)) {
        this.pendingReplies.get(msg.reply)(msg);
        this.pendingReplies.delete(msg.reply);
      }
    });
    child.on('exit', (code, signal) => {
      for (const settle of this.pendingReplies.values()) settle({ error: `service exited (${code ?? signal}); see ${this.logFile}` });
      this.pendingReplies.clear();
    });
  }

  /** `env`: settings on top of SERVICE_ENV (e.g. the issuance phases' supplier latency). */
  static async start(env = {}) {
    log(`starting the service on ${BASE}, database ${DB_NAME}${Object.keys(env).length ? ` with ${JSON.stringify(env)}` : ''}`);
    const out = fs.openSync(path.join(TMP, 'service.log'), 'a');
    const child = spawn(process.execPath, [...START_FLAGS, ...NODE_ARGS, '-r', path.join(__dirname, 'agent.js'), 'dist/apps/api/src/main.js'], {
      cwd: ROOT,
      env: { ...SERVICE_ENV, ...env },
      stdio: ['ignore', out, out, 'ipc'],
    });
    const service = new Service(child);
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`service exited during start; see ${service.logFile}`);
      try {
        const res = await fetch(`${BASE}/health/ready`);
        if (res.ok) return service;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    throw new Error('service did not become ready in 120 s');
  }

  /** One command to the agent inside the service (capture-*, stats-*, prof-*). */
  agent(cmd) {
    return new Promise((resolve, reject) => {
      const id = ++this.replySeq;
      this.pendingReplies.set(id, (msg) => (msg.error ? reject(new Error(msg.error)) : resolve(msg)));
      this.child.send({ cmd: `bench:${cmd}`, id });
    });
  }

  /**
   * Freezes the whole process (both threads) with SIGSTOP, so the replayed ceiling has the database
   * to itself as it had when the service was stopped for it, while the service stays warm for the
   * next phase. It is frozen only between transactions: a session of it caught inside one would hold
   * its locks through the replay, so then it runs on a moment and is frozen again.
   */
  async pause(db) {
    for (let attempt = 0; attempt < 100; attempt++) {
      process.kill(this.pid, 'SIGSTOP');
      this.paused = true;
      await sleep(30);
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND backend_type = 'client backend' AND state <> 'idle'
            AND application_name <> $1`,
        [APPLICATION_NAME],
      );
      if (rows[0].n === 0) return;
      this.resume();
      await sleep(20 + attempt * 5);
    }
    throw new Error('could not pause the service between transactions in 100 attempts');
  }

  resume() {
    if (!this.paused) return;
    process.kill(this.pid, 'SIGCONT');
    this.paused = false;
  }

  async stop() {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    this.resume();
    const done = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await done;
    clearTimeout(timer);
  }
}

/** One operator command of the built CLI (it prints one JSON object). */
function cli(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['dist/apps/cli/src/main.js', ...args], { cwd: ROOT, env: SERVICE_ENV }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`cli ${args[0]}: ${stderr || err.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

/** One HTTP call to the service, body parsed when it is JSON. */
async function api(key, method, p, body, headers = {}) {
  const res = await fetch(`${BASE}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: json, headers: res.headers };
}

/**
 * The run's database, and its queues' keys in Redis (QUEUE_PREFIX; another run's with the arguments): a run stops the service with jobs still queued
 * (a hundred thousand e-mails after the scheduled drain), which would otherwise stay in a shared Redis for good.
 */
async function dropDatabase(dbName = DB_NAME, queuePrefix = SERVICE_ENV.QUEUE_PREFIX) {
  const admin = new Client({ connectionString: `${PG}/postgres`, application_name: APPLICATION_NAME });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  const redis = new Redis(SERVICE_ENV.REDIS_URL || 'redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  // SCAN and UNLINK a page at a time: never one long command on a Redis that others use.
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.unlink(keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

module.exports = { buildIfNeeded, Service, cli, api, dropDatabase };
