#!/usr/bin/env node
'use strict';
// `node bench/mail-cpu.js`: the worker thread's CPU per reward e-mail (issue 33, point 3).
//
// 1. A fresh database and queue prefix; an SMTP sink in this process (smtp-server, as in the tests).
// 2. The API alone (RUN_WORKERS=false) creates MAIL_CPU_COUNT CHOICE rewards of one merchant: their
//    e-mail jobs wait in Bull. The API is stopped and the rewards' outbox events are marked dispatched,
//    so what the worker does next is the e-mails and nothing else.
// 3. The service as `npm start` runs it (API + worker thread) is started on that backlog. The worker
//    thread's CPU (/proc/<pid>/task/<tid>/schedstat: ns on a CPU) is read when the sink receives the
//    first e-mail, the MAIL_CPU_WARM-th and the last: CPU per e-mail from the first to the last, and
//    from the warm one to the last (JIT warm-up left out). The whole process's CPU is given beside it,
//    and the e-mails received per second of wall clock from the first to the last.
// 4. Checks: every reward's e-mail received exactly once, every job SENT, every reward DELIVERED.
//
// Settings: MAIL_CPU_COUNT (2000), MAIL_CPU_WARM (200), MAIL_CPU_PROFILE=<dir> (runs the service with
// --cpu-prof into <dir>; summarise with `node bench/cpuprofile-summary.js <dir>/<worker's file>`),
// MAIL_CPU_KEEP=1 (keeps the database). The database and the Redis keys are removed at the end.
const { spawn, execFile, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { Client } = require('pg');
const { dropDatabase } = require('./service');
const { SMTPServer } = require('smtp-server');

const ROOT = path.join(__dirname, '..');
const env = process.env;
const COUNT = Number(env.MAIL_CPU_COUNT || 2000);
const WARM = Math.min(Number(env.MAIL_CPU_WARM || 200), COUNT - 1);
const PROFILE_DIR = env.MAIL_CPU_PROFILE ? path.resolve(env.MAIL_CPU_PROFILE) : null;
const PG = (env.BENCH_PG || 'postgres://postgres@127.0.0.1:5432').replace(/\/$/, '');
let PORT = Number(env.MAIL_CPU_PORT || 0);
const STAMP = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
const DB_NAME = `mailcpu_${STAMP}`;
const PREFIX = `mailcpu_${STAMP}`;
let BASE = '';
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-cpu-'));
const START_FLAGS = require('../package.json').scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
const TICK_NS = 1e9 / 100;

const log = (...args) => process.stderr.write(`[mail-cpu ${new Date().toISOString().slice(11, 19)}] ${args.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function serviceEnv(smtpUrl, extra) {
  return {
    ...env,
    PORT: String(PORT),
    PUBLIC_BASE_URL: BASE,
    DATABASE_URL: `${PG}/${DB_NAME}`,
    QUEUE_PREFIX: PREFIX,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    MAIL_OUTBOX_DIR: path.join(TMP, 'outbox'),
    SMTP_URL: smtpUrl,
    ENV_FILE: '/dev/null',
    ...extra,
  };
}

/** The SMTP sink: counts messages and recipients, and calls `onMessage(n)` as the n-th arrives. */
function startSink(onMessage) {
  const seen = new Map();
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received += 1;
        for (const rcpt of session.envelope.rcptTo) seen.set(rcpt.address, (seen.get(rcpt.address) ?? 0) + 1);
        onMessage(received);
        callback();
      });
    },
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `smtp://127.0.0.1:${server.server.address().port}`,
        seen,
        count: () => received,
        stop: () => new Promise((r) => server.close(r)),
      }),
    );
  });
}

function startService(extraEnv, smtpUrl, nodeArgs = []) {
  const out = fs.openSync(path.join(TMP, 'service.log'), 'a');
  const child = spawn(process.execPath, [...START_FLAGS, ...nodeArgs, 'dist/apps/api/src/main.js'], {
    cwd: ROOT,
    env: serviceEnv(smtpUrl, extraEnv),
    stdio: ['ignore', out, out],
  });
  const ready = (async () => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`service exited during start; see ${TMP}/service.log`);
      try {
        if ((await fetch(`${BASE}/health/ready`)).ok) return child;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    throw new Error('service did not become ready in 120 s');
  })();
  return { child, ready };
}

async function stopService(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await done;
  clearTimeout(timer);
}

function cli(args, smtpUrl) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['dist/apps/cli/src/main.js', ...args], { cwd: ROOT, env: serviceEnv(smtpUrl, {}) }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`cli ${args[0]}: ${stderr || err.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

async function api(key, method, p, body) {
  const res = await fetch(`${BASE}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** ns on a CPU of each thread of `pid` (schedstat's first field), and the process's total. */
function threads(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(tid, Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the thread ended
    }
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { threads: out, processNs: (Number(fields[11]) + Number(fields[12])) * TICK_NS, at: performance.now() };
}

/** A port nothing listens on now (other work on this machine runs services too). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = require('node:net').createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function main() {
  PORT ||= await freePort();
  BASE = `http://127.0.0.1:${PORT}`;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: 'inherit' });
  const marks = {};
  let service = null;
  const sink = await startSink((n) => {
    if (!service) return;
    if (n === 1) marks.first = threads(service.pid);
    if (n === WARM) marks.warm = threads(service.pid);
    if (n === COUNT) marks.last = threads(service.pid);
  });
  log(`database ${DB_NAME}, queue prefix ${PREFIX}, ${COUNT} CHOICE rewards, sink ${sink.url}, logs in ${TMP}`);
  try {
    // 1. The backlog: rewards created by the API alone, their e-mail jobs queued in Bull.
    const api1 = startService({ RUN_WORKERS: 'false' }, sink.url);
    await api1.ready;
    const { accountId } = await cli(['merchant:create', '--name', 'Mail CPU', '--email', `mailcpu-${STAMP}@example.test`, '--password', 'bench password 123'], sink.url);
    const { key } = await cli(['api-key:create', '--account', accountId, '--scopes', 'read,write'], sink.url);
    const topup = await api(key, 'POST', '/v1/topups', { amountCents: Math.max(100_000_000, COUNT * 5000) });
    if (topup.status !== 201) throw new Error(`top-up failed: ${topup.status} ${JSON.stringify(topup.body)}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < COUNT) {
          const i = next++;
          const res = await api(key, 'POST', '/v1/rewards', { type: 'CHOICE', valueCents: 5000, recipient: { email: `r${i}@example.test`, firstName: 'Ada' } });
          if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }),
    );
    await stopService(api1.child);
    log(`${COUNT} rewards created; ${sink.count()} e-mails sent so far (expected 0)`);
    const db = new Client({ connectionString: `${PG}/${DB_NAME}`, application_name: 'mail-cpu-bench' });
    await db.connect();
    await db.query('UPDATE events SET dispatched_at = clock_timestamp() WHERE dispatched_at IS NULL');

    // 2. The worker thread on that backlog.
    if (PROFILE_DIR) fs.mkdirSync(PROFILE_DIR, { recursive: true });
    const full = startService({ RUN_WORKERS: 'true' }, sink.url, PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []);
    service = full.child;
    const started = threads(service.pid);
    await full.ready;
    const deadline = Date.now() + 600_000;
    while (sink.count() < COUNT && Date.now() < deadline) await sleep(100);
    if (sink.count() < COUNT) throw new Error(`only ${sink.count()} of ${COUNT} e-mails within 10 minutes`);
    await sleep(1000); // the last jobs' bookkeeping
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM mail_jobs WHERE status = 'SENT')::int AS sent,
              (SELECT count(*) FROM mail_jobs WHERE status <> 'SENT')::int AS other,
              (SELECT count(*) FROM rewards WHERE email_status = 'DELIVERED')::int AS delivered`,
    );
    await stopService(service);
    await db.end();

    // 3. The figures. The worker thread: the thread, other than the main one, with the most CPU from the first e-mail to the last.
    const pid = String(service.pid);
    const delta = (a, b, tid) => (b.threads.get(tid) ?? 0) - (a.threads.get(tid) ?? 0);
    const candidates = [...marks.last.threads.keys()].filter((tid) => tid !== pid);
    const worker = candidates.reduce((best, tid) => (delta(marks.first, marks.last, tid) > delta(marks.first, marks.last, best) ? tid : best));
    const ms = (ns, n) => Math.round((ns / n / 1e6) * 1000) / 1000;
    const others = (a, b) => candidates.filter((t) => t !== worker).reduce((sum, t) => sum + delta(a, b, t), 0);
    const result = {
      at: new Date().toISOString(),
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim(),
      dirty: execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT }).toString().trim() !== '',
      emails: COUNT,
      workerMsPerEmail: ms(delta(marks.first, marks.last, worker), COUNT - 1),
      workerMsPerEmailAfterWarm: ms(delta(marks.warm, marks.last, worker), COUNT - WARM),
      mainThreadMsPerEmail: ms(delta(marks.first, marks.last, pid), COUNT - 1),
      otherThreadsMsPerEmail: ms(others(marks.first, marks.last), COUNT - 1),
      processMsPerEmail: ms(marks.last.processNs - marks.first.processNs, COUNT - 1),
      workerThreadStartupMs: ms(delta(started, marks.first, worker), 1),
      // Wall clock, first e-mail received to the last: how fast one worker sends (4 at once).
      emailsPerSecond: Math.round(((COUNT - 1) * 1000) / (marks.last.at - marks.first.at)),
      checks: {
        received: sink.count(),
        recipients: sink.seen.size,
        receivedTwice: [...sink.seen.values()].filter((n) => n !== 1).length,
        jobsSent: rows[0].sent,
        jobsNotSent: rows[0].other,
        rewardsDelivered: rows[0].delivered,
      },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    const ok = result.checks.received === COUNT && result.checks.recipients === COUNT && result.checks.receivedTwice === 0 && rows[0].sent === COUNT && rows[0].delivered === COUNT;
    if (!ok) throw new Error('checks failed: not every reward got its one e-mail');
  } finally {
    if (service) await stopService(service);
    await sink.stop();
    if (!env.MAIL_CPU_KEEP) await dropDatabase(DB_NAME, PREFIX);
  }
}

main().catch((error) => {
  log(`failed: ${error.stack || error}`);
  process.exitCode = 1;
});
