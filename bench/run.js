#!/usr/bin/env node
'use strict';
// `npm run bench`: starts the service as `npm start` would (fresh database, workers in-process,
// rate limit lifted), seeds merchants, measures each HTTP path with autocannon, replays the SQL of
// one reward creation straight through `pg` as the ceiling, and writes bench/results/<stamp>.json
// and BENCHMARKS.md. Env: BENCH_DURATION (s, default 10), BENCH_WARMUP (3), BENCH_CONNECTIONS (16),
// BENCH_PORT (3900), BENCH_PG (postgres://postgres@127.0.0.1:5432), BENCH_KEEP_DB=1 to keep the database.
// BENCH_ONLY=create,fixed,bulk,reads,catalog,webhooks,profile,ceiling runs only those groups (for
// development: it prints the phases and writes bench/results/partial-<stamp>.json, not BENCHMARKS.md).
// BENCH_NODE_ARGS adds node flags to the service (e.g. --trace-gc; its output is in the service log).
const { spawn, execFile, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const autocannon = require('autocannon');
const { Client } = require('pg');

const ROOT = path.join(__dirname, '..');
const env = process.env;
const DURATION = Number(env.BENCH_DURATION || 10);
const WARMUP = Number(env.BENCH_WARMUP || 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 16);
const PORT = Number(env.BENCH_PORT || 3900);
const PG = (env.BENCH_PG || 'postgres://postgres@127.0.0.1:5432').replace(/\/$/, '');
const MERCHANTS = 20;
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((g) => g.trim())) : null;
const wanted = (group) => !ONLY || ONLY.has(group);
const BULK_COUNT = Number(env.BENCH_BULK_COUNT || 5);
// 16 endpoints: with 4, deliveries/s is bounded by how fast the creates produce events, not by the fan-out.
const WEBHOOK_ENDPOINTS = Number(env.BENCH_WEBHOOK_ENDPOINTS || 16);
const CHOICE_CENTS = 5000;
const STARTED = new Date();
const STAMP = STARTED.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
const DB_NAME = `rewards_bench_${STAMP}`;
const DATABASE_URL = `${PG}/${DB_NAME}`;
const BASE = `http://127.0.0.1:${PORT}`;
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'rewards-bench-'));
const RESULTS_DIR = path.join(__dirname, 'results');

const SERVICE_ENV = {
  ...env,
  PORT: String(PORT),
  PUBLIC_BASE_URL: BASE,
  DATABASE_URL,
  QUEUE_PREFIX: `bench_${STAMP}`,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '1000000',
  MAIL_OUTBOX_DIR: path.join(TMP, 'outbox'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  RUN_WORKERS: 'true',
};

const log = (...args) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${args.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (n, d = 1) => (n == null || Number.isNaN(n) ? null : Math.round(n * 10 ** d) / 10 ** d);
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : null);
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: round(pct(s, 50)), p99: round(pct(s, 99)), max: round(s[s.length - 1]), mean: round(s.reduce((a, b) => a + b, 0) / (s.length || 1)) };
};

const results = {
  startedAt: STARTED.toISOString(),
  config: { durationS: DURATION, warmupS: WARMUP, connections: CONNECTIONS, merchants: MERCHANTS, choiceValueCents: CHOICE_CENTS },
  machine: {},
  database: DB_NAME,
  sqlCapture: null,
  phases: {},
  ceiling: {},
  invariants: [],
  figures: [],
};

let service = null;
let db = null;

async function main() {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: 'inherit' });
  db = new Client({ connectionString: `${PG}/postgres` });
  await db.connect();
  results.machine = await machine(db);
  await db.end();

  await startService();
  db = new Client({ connectionString: DATABASE_URL });
  await db.connect();

  const seed = await seedMerchants();
  const catalog = await api(seed.merchants[0].key, 'GET', '/v1/catalog?currency=USD');
  const items = catalog.body.brands.flatMap((b) => b.items.map((i) => ({ ...i, brandKey: b.brandKey })));
  const fixed = items.find((i) => i.brandKey !== 'test-failure' && i.valueType === 'FIXED_VALUE');
  if (!fixed) throw new Error('no FIXED_VALUE USD item in the catalog');
  results.config.fixedItem = { utid: fixed.utid, brandKey: fixed.brandKey, valueCents: Math.round(fixed.faceValue * 100) };

  const plan = wanted('ceiling') ? await captureCreatePlan(seed.merchants[0].key, seed.merchants[0].accountId) : null;
  const hot = seed.merchants[0];

  // 1. CHOICE creation, hot wallet row and 20 merchants
  if (wanted('create')) {
    const one = await createPhase('create_choice_1_merchant', [hot], choiceBody);
    const many = await createPhase('create_choice_20_merchants', seed.merchants.slice(0, MERCHANTS), choiceBody);
    await createPhase('create_choice_1_merchant_half_peak', [hot], choiceBody, { overallRate: Math.max(1, Math.round(one.rps / 2)) });
    await createPhase('create_choice_20_merchants_half_peak', seed.merchants.slice(0, MERCHANTS), choiceBody, { overallRate: Math.max(1, Math.round(many.rps / 2)) });
  }

  // 2. FIXED end to end
  if (wanted('fixed')) await fixedPhase(seed.merchants.slice(0, MERCHANTS), results.config.fixedItem);

  // 3. Bulk of 500
  if (wanted('bulk')) await bulkPhase(seed.merchants[1]);

  // 4. Reads
  if (wanted('reads')) {
    if (!ONLY || !ONLY.has('create')) await cannon({ duration: 2, requests: createRequests([hot], choiceBody) });
    const listed = await api(hot.key, 'GET', '/v1/rewards?page_size=100');
    const ids = listed.body.rewards.map((r) => r.id);
    await readPhase('get_rewards_list_100', hot.key, () => '/v1/rewards?page_size=100');
    let n = 0;
    await readPhase('get_reward_by_id', hot.key, () => `/v1/rewards/${ids[n++ % ids.length]}`);
  }
  if (wanted('catalog')) {
    const full = await fetch(`${BASE}/v1/catalog`, { headers: { authorization: `Bearer ${hot.key}` } });
    const etag = full.headers.get('etag');
    await full.text();
    await readPhase('get_catalog_full', hot.key, () => '/v1/catalog', {}, 200);
    await readPhase('get_catalog_304', hot.key, () => '/v1/catalog', { 'if-none-match': etag }, 304);
  }

  // 5. Webhook fan-out
  if (wanted('webhooks')) await webhookPhase(seed.merchants[MERCHANTS]);

  // 6. Profiles (separate short passes, so the sampling profiler does not tax the measured figures)
  if (wanted('profile')) {
    await profilePhase('profile_create_1_merchant', [hot]);
    await profilePhase('profile_create_20_merchants', seed.merchants.slice(0, MERCHANTS));
  }

  await stopService();

  // 7. The ceiling: the captured statements of one creation, replayed through pg at the same concurrency
  if (wanted('ceiling')) {
    const accountsAll = seed.merchants.slice(0, MERCHANTS).map((m) => m.accountId);
    results.ceiling.create_choice_1_merchant = await replayPhase('ceiling_1_merchant', plan, [hot.accountId]);
    results.ceiling.create_choice_20_merchants = await replayPhase('ceiling_20_merchants', plan, accountsAll);
    results.invariants.push(await invariants('after ceiling replay', accountsAll));
  }

  await db.end();
  if (!env.BENCH_KEEP_DB) await dropDatabase();
  if (ONLY) {
    results.finishedAt = new Date().toISOString();
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `partial-${STAMP}.json`);
    fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`partial run (${[...ONLY].join(',')}): wrote ${path.relative(ROOT, file)}`);
    return;
  }
  results.finishedAt = new Date().toISOString();
  buildFigures();
  write();
}

// ---------------------------------------------------------------- machine and service

async function machine(client) {
  const pgVersion = (await client.query('SELECT version()')).rows[0].version;
  let redisVersion = null;
  try {
    redisVersion = execFileSync('redis-cli', ['INFO', 'server'], { encoding: 'utf8' }).match(/redis_version:(\S+)/)[1];
  } catch {
    redisVersion = 'unknown';
  }
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0] && cpus[0].model,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: pgVersion.split(' on ')[0],
    redis: redisVersion,
    autocannon: require('autocannon/package.json').version,
  };
}

let replySeq = 0;
const pendingReplies = new Map();
function agent(cmd) {
  return new Promise((resolve, reject) => {
    const id = ++replySeq;
    pendingReplies.set(id, (msg) => (msg.error ? reject(new Error(msg.error)) : resolve(msg)));
    service.send({ cmd: `bench:${cmd}`, id });
  });
}

async function startService() {
  log(`starting the service on ${BASE}, database ${DB_NAME}`);
  const out = fs.openSync(path.join(TMP, 'service.log'), 'a');
  // BENCH_NODE_ARGS: extra node flags for the service only (e.g. --trace-gc, which NODE_OPTIONS refuses).
  const nodeArgs = env.BENCH_NODE_ARGS ? env.BENCH_NODE_ARGS.split(/\s+/).filter(Boolean) : [];
  service = spawn(process.execPath, [...nodeArgs, '-r', path.join(__dirname, 'agent.js'), 'dist/apps/api/src/main.js'], {
    cwd: ROOT,
    env: SERVICE_ENV,
    stdio: ['ignore', out, out, 'ipc'],
  });
  service.on('message', (msg) => {
    if (msg && msg.reply && pendingReplies.has(msg.reply)) {
      pendingReplies.get(msg.reply)(msg);
      pendingReplies.delete(msg.reply);
    }
  });
  let exited = false;
  service.on('exit', (code, signal) => {
    exited = true;
    for (const settle of pendingReplies.values()) settle({ error: `service exited (${code ?? signal}); see ${path.join(TMP, 'service.log')}` });
    pendingReplies.clear();
  });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`service exited during start; see ${path.join(TMP, 'service.log')}`);
    try {
      const res = await fetch(`${BASE}/health/ready`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error('service did not become ready in 120 s');
}

async function stopService() {
  if (!service || service.exitCode !== null) return;
  const done = new Promise((r) => service.once('exit', r));
  service.kill('SIGTERM');
  const timer = setTimeout(() => service.kill('SIGKILL'), 15_000);
  await done;
  clearTimeout(timer);
}

async function dropDatabase() {
  const admin = new Client({ connectionString: `${PG}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.end();
}

function cli(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['dist/apps/cli/src/main.js', ...args], { cwd: ROOT, env: SERVICE_ENV }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`cli ${args[0]}: ${stderr || err.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

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

async function seedMerchants() {
  log(`seeding ${MERCHANTS + 1} merchants`);
  const merchants = new Array(MERCHANTS + 1);
  let next = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (next < merchants.length) {
        const i = next++;
        const { accountId } = await cli(['merchant:create', '--name', `Bench ${i}`, '--email', `bench${i}-${STAMP}@example.test`, '--password', 'bench password 123']);
        const { key } = await cli(['api-key:create', '--account', accountId, '--scopes', 'read,write']);
        merchants[i] = { accountId, key };
      }
    }),
  );
  for (const m of merchants) {
    for (let t = 0; t < 2; t++) {
      const res = await api(m.key, 'POST', '/v1/topups', { amountCents: 100_000_000 });
      if (res.status !== 201) throw new Error(`top-up failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  return { merchants };
}

// ---------------------------------------------------------------- measurement helpers

function loadavg() {
  return os.loadavg().map((l) => round(l, 2));
}

/**
 * CPU jiffies: whole machine, and per process (the service, every postgres process, redis, this
 * load generator). Kept per PID, so a backend that exits between two snapshots is left out rather
 * than subtracted; one that starts in between counts from zero.
 */
function cpuSnapshot() {
  const total = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const snap = { total: total.reduce((a, b) => a + b, 0), idle: total[3] + total[4], procs: new Map() };
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const jiffies = Number(fields[11]) + Number(fields[12]);
    let kind = null;
    if (service && Number(pid) === service.pid) kind = 'service';
    else if (Number(pid) === process.pid) kind = 'bench';
    else if (comm.startsWith('postgres')) kind = 'postgres';
    else if (comm.startsWith('redis')) kind = 'redis';
    if (kind) snap.procs.set(`${pid}:${fields[19]}`, { kind, jiffies }); // pid + start time: a reused pid is another process
  }
  return snap;
}

function cpuDiff(a, b) {
  const total = b.total - a.total || 1;
  const used = { service: 0, postgres: 0, redis: 0, bench: 0 };
  for (const [key, p] of b.procs) used[p.kind] += p.jiffies - (a.procs.get(key)?.jiffies ?? 0);
  const share = (k) => round((100 * used[k]) / total, 1);
  const busy = round(100 - (100 * (b.idle - a.idle)) / total, 1);
  const parts = { service: share('service'), postgres: share('postgres'), redis: share('redis'), loadGenerator: share('bench') };
  return { busyPct: busy, ...parts, otherPct: round(busy - Object.values(parts).reduce((x, y) => x + y, 0), 1), note: '% of all cores' };
}

/** Samples pg_stat_activity of the bench database: what the backends wait on. */
function waitSampler() {
  const client = new Client({ connectionString: DATABASE_URL });
  const counts = new Map();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query(
        `SELECT CASE WHEN state = 'idle in transaction' THEN 'idle in transaction (waiting on the app)'
                     WHEN wait_event IS NOT NULL THEN wait_event_type || ':' || wait_event ELSE 'CPU (active)' END AS w,
                count(*)::int AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'
          GROUP BY 1`,
      );
      samples++;
      for (const r of rows) counts.set(r.w, (counts.get(r.w) || 0) + r.n);
      await sleep(100);
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return [...counts.entries()]
        .map(([wait, n]) => ({ wait, avgBackends: round(n / (samples || 1), 2) }))
        .sort((a, b) => b.avgBackends - a.avgBackends)
        .slice(0, 8);
    },
  };
}

async function backlog() {
  const { rows } = await db.query(`SELECT
      (SELECT count(*) FROM mail_jobs WHERE status = 'PENDING')::int AS mail,
      (SELECT count(*) FROM reward_cards WHERE status = 'PENDING')::int AS cards,
      (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int AS events,
      (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING')::int AS deliveries`);
  return rows[0];
}

/** Waits (up to 45 s) for the background work of earlier phases to finish, so it does not tax the next. */
async function drain() {
  const deadline = Date.now() + 45_000;
  let b = await backlog();
  while (b.mail + b.cards + b.events + b.deliveries > 0 && Date.now() < deadline) {
    await sleep(500);
    b = await backlog();
  }
  return b;
}

async function measured(name, fn, { quiesce = true } = {}) {
  const backlogAtStart = quiesce ? await drain() : null;
  const load = loadavg();
  log(`${name}: load ${load.join(' ')}`);
  const cpu0 = cpuSnapshot();
  const waits = waitSampler();
  const out = await fn();
  const cpu = cpuDiff(cpu0, cpuSnapshot());
  const result = { ...out, loadavg: load, backlogAtStart, cpu, pgWaits: await waits.stop() };
  results.phases[name] = result;
  log(`${name}: ${JSON.stringify(summaryLine(result))}`);
  return result;
}

function summaryLine(r) {
  const keys = ['rps', 'p50', 'p99', 'errors', 'wallMs', 'deliveriesPerS', 'lagMs', 'issueMs'];
  return Object.fromEntries(keys.filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ url: BASE, connections: CONNECTIONS, timeout: 30, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

function summarise(res, expected = 2) {
  const ok = expected === 2 ? res['2xx'] : res.statusCodeStats?.[String(expected)]?.count || 0;
  const errors = res.errors + res.timeouts + (res.requests.total - ok - res.errors - res.timeouts);
  return {
    rps: round(ok / res.duration, 1),
    ok,
    p50: res.latency.p50,
    p99: res.latency.p99,
    mean: round(res.latency.average, 2),
    errors,
    statusCodes: Object.fromEntries(Object.entries(res.statusCodeStats || {}).map(([k, v]) => [k, v.count])),
    durationS: round(res.duration, 2),
    connections: res.connections,
  };
}

/**
 * Open-loop load at `rate` requests/s, evenly spaced, over at most CONNECTIONS keep-alive
 * connections. autocannon's own rate option is not used for this: it lets each connection send its
 * per-second quota back to back at the start of every second (lib/httpClient.js, rateInterval), so
 * "half of peak" would arrive as full-speed bursts. Latency counts from the scheduled send time, so
 * a request that waits for a free connection is charged for the wait (no coordinated omission).
 */
async function paced(merchants, body, rate, seconds) {
  // FIFO: every pooled socket is used in turn, so none idles past the server's keep-alive timeout
  // (with Node's default LIFO, a rarely used socket can be closed by the server just as it is reused).
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, scheduling: 'fifo' });
  const total = Math.round(rate * seconds);
  const latencies = [];
  const timeline = [];
  const statusCodes = {};
  let errors = 0;
  let ok = 0;
  const started = performance.now();
  const one = (i) =>
    new Promise((resolve) => {
      const m = merchants[i % merchants.length];
      const scheduled = started + (i * 1000) / rate;
      const payload = body(i);
      const req = http.request(
        `${BASE}/v1/rewards`,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - scheduled);
            timeline.push([scheduled - started, performance.now() - scheduled]);
            statusCodes[res.statusCode] = (statusCodes[res.statusCode] || 0) + 1;
            if (res.statusCode >= 200 && res.statusCode < 300) ok++;
            else errors++;
            resolve();
          });
        },
      );
      req.on('error', (error) => {
        errors++;
        statusCodes[error.code || 'error'] = (statusCodes[error.code || 'error'] || 0) + 1;
        resolve();
      });
      req.end(payload);
    });
  const inflight = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    inflight.push(one(i));
  }
  await Promise.all(inflight);
  agent.destroy();
  const durationS = (performance.now() - started) / 1000;
  const s = stats(latencies);
  return {
    rps: round(ok / seconds, 1),
    ok,
    p50: round(s.p50, 0),
    p99: round(s.p99, 0),
    mean: s.mean,
    errors,
    statusCodes,
    durationS: round(durationS, 2),
    connections: CONNECTIONS,
    pacing: 'open loop, evenly spaced; latency from the scheduled send time',
    // Where the tail lies: the slowest seconds of the run (second, requests over 50 ms, worst ms).
    slowestSeconds: Object.entries(
      timeline.reduce((acc, [at, ms]) => {
        const second = Math.floor(at / 1000);
        const entry = (acc[second] = acc[second] || { over50: 0, worst: 0 });
        if (ms > 50) entry.over50++;
        entry.worst = Math.max(entry.worst, ms);
        return acc;
      }, {}),
    )
      .map(([second, v]) => ({ second: Number(second), over50: v.over50, worstMs: round(v.worst, 0) }))
      .sort((a, b) => b.over50 - a.over50 || b.worstMs - a.worstMs)
      .slice(0, 5),
  };
}

const choiceBody = (i) =>
  JSON.stringify({ type: 'CHOICE', valueCents: CHOICE_CENTS, recipient: { email: `r${i}@example.test`, firstName: 'Ada' } });

function createRequests(merchants, body, onCreated) {
  let i = 0;
  return [
    {
      method: 'POST',
      path: '/v1/rewards',
      setupRequest: (req) => {
        const m = merchants[i % merchants.length];
        i++;
        return {
          ...req,
          headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: body(i),
        };
      },
      onResponse: onCreated ? (status, resBody) => status === 201 && onCreated(resBody) : undefined,
    },
  ];
}

async function rewardCount(accountIds) {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM rewards WHERE account_id = ANY($1)', [accountIds]);
  return rows[0].n;
}

async function invariants(label, accountIds) {
  const { rows } = await db.query(
    `SELECT w.account_id, w.available_cents::bigint AS available, w.reserved_cents::bigint AS reserved,
            COALESCE(t.a, 0)::bigint AS available_sum, COALESCE(t.r, 0)::bigint AS reserved_sum
       FROM wallets w
       LEFT JOIN (SELECT account_id, SUM(available_delta_cents) AS a, SUM(reserved_delta_cents) AS r
                    FROM wallet_transactions GROUP BY account_id) t ON t.account_id = w.account_id
      WHERE w.account_id = ANY($1)`,
    [accountIds],
  );
  const bad = rows.filter((r) => Number(r.available) < 0 || Number(r.reserved) < 0 || r.available !== r.available_sum || r.reserved !== r.reserved_sum);
  const out = { label, wallets: rows.length, ok: bad.length === 0 && rows.length === accountIds.length, violations: bad };
  if (!out.ok) log(`LEDGER INVARIANTS VIOLATED ${label}: ${JSON.stringify(bad)}`);
  return out;
}

// ---------------------------------------------------------------- phases

async function createPhase(name, merchants, body, extra = {}) {
  const accountIds = merchants.map((m) => m.accountId);
  // A fixed rate is offered evenly spaced (paced); without one, autocannon keeps every connection busy.
  const load = (duration) => (extra.overallRate ? paced(merchants, body, extra.overallRate, duration) : cannon({ duration, requests: createRequests(merchants, body) }).then((res) => summarise(res)));
  await load(WARMUP);
  await sleep(1000); // the warm-up's last requests land before the count
  const before = await rewardCount(accountIds);
  const r = await measured(name, () => load(DURATION));
  await sleep(1000);
  const created = (await rewardCount(accountIds)) - before;
  r.rewardsCreated = created;
  // requests still in flight when autocannon stops counting complete on the server: at most one per connection
  r.createdMatches2xx = created >= r.ok && created - r.ok <= CONNECTIONS;
  r.invariants = await invariants(name, accountIds);
  results.invariants.push(r.invariants);
  if (extra.overallRate) r.offeredRate = extra.overallRate;
  return r;
}

async function fixedPhase(merchants, item) {
  const body = (i) => JSON.stringify({ type: 'FIXED', utid: item.utid, valueCents: item.valueCents, recipient: { email: `f${i}@example.test`, firstName: 'Ada' } });
  await cannon({ duration: WARMUP, requests: createRequests(merchants, body) });
  const ids = [];
  const r = await measured('create_fixed_end_to_end', async () => {
    const res = summarise(await cannon({ duration: DURATION, requests: createRequests(merchants, body, (b) => ids.push(JSON.parse(b).reward.id)) }));
    // creation to ISSUED: wait for the worker to issue every card of the measured rewards
    const deadline = Date.now() + 120_000;
    let pending = Infinity;
    while (Date.now() < deadline) {
      pending = (await db.query(`SELECT count(*)::int AS n FROM reward_cards WHERE reward_id = ANY($1) AND status = 'PENDING'`, [ids])).rows[0].n;
      if (pending === 0) break;
      await sleep(250);
    }
    const { rows } = await db.query(
      `SELECT c.status, extract(epoch FROM (c.issued_at - r.created_at)) * 1000 AS ms, r.created_at, c.issued_at
         FROM reward_cards c JOIN rewards r ON r.id = c.reward_id WHERE r.id = ANY($1)`,
      [ids],
    );
    const issued = rows.filter((x) => x.status === 'ISSUED');
    const first = Math.min(...rows.map((x) => x.created_at.getTime()));
    const last = Math.max(...issued.map((x) => x.issued_at.getTime()));
    return {
      ...res,
      issued: issued.length,
      notIssued: rows.length - issued.length,
      stillPending: pending,
      issueMs: stats(issued.map((x) => Number(x.ms))),
      issuedPerS: round(issued.length / ((last - first) / 1000), 1),
    };
  });
  r.invariants = await invariants('create_fixed_end_to_end', merchants.map((m) => m.accountId));
  results.invariants.push(r.invariants);
}

async function bulkPhase(merchant) {
  const bulk = (k) => ({ rewards: Array.from({ length: 500 }, (_, i) => ({ type: 'CHOICE', valueCents: CHOICE_CENTS, recipient: { email: `b${k}-${i}@example.test`, firstName: 'Ada' } })) });
  const send = async (k) => {
    const t = performance.now();
    const res = await api(merchant.key, 'POST', '/v1/rewards/bulk', bulk(k), { 'idempotency-key': crypto.randomUUID() });
    const ms = performance.now() - t;
    if (res.status !== 207 || res.body.sent !== 500) throw new Error(`bulk failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return ms;
  };
  await send(-1); // warm-up
  const r = await measured('create_bulk_500', async () => {
    const times = [];
    for (let k = 0; k < BULK_COUNT; k++) {
      times.push(await send(k));
      await drain(); // each bulk on a quiet service: its mails and events do not tax the next
    }
    return { wallMs: stats(times), bulks: times.length, itemsPerS: round((500 * times.length) / (times.reduce((a, b) => a + b, 0) / 1000), 0) };
  });
  r.invariants = await invariants('create_bulk_500', [merchant.accountId]);
  results.invariants.push(r.invariants);
}

async function readPhase(name, key, pathFn, headers = {}, expected = 2) {
  const requests = [{ method: 'GET', setupRequest: (req) => ({ ...req, path: pathFn(), headers: { authorization: `Bearer ${key}`, ...headers } }) }];
  await cannon({ duration: WARMUP, requests });
  return measured(name, async () => summarise(await cannon({ duration: DURATION, requests }), expected));
}

async function webhookPhase(merchant) {
  const receipts = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        receipts.push({ at, createdAt: Date.parse(body.createdAt), id: body.id, endpoint: req.url });
      } catch {
        receipts.push({ at, createdAt: NaN });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  for (let i = 0; i < WEBHOOK_ENDPOINTS; i++) {
    const res = await api(merchant.key, 'POST', '/v1/webhook-endpoints', { url: `http://127.0.0.1:${port}/hook/${i}`, events: [] });
    if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await measured('webhook_fanout', async () => {
    // events come from reward creations (reward.created + reward.sent) on one merchant with N endpoints
    const load = summarise(await cannon({ duration: DURATION, requests: createRequests([merchant], choiceBody) }));
    const deadline = Date.now() + 120_000;
    let expected = 0;
    while (Date.now() < deadline) {
      expected = (await db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [merchant.accountId])).rows[0].n;
      const undispatched = (await db.query('SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND dispatched_at IS NULL', [merchant.accountId])).rows[0].n;
      if (undispatched === 0 && receipts.length >= expected) break;
      await sleep(250);
    }
    const first = Math.min(...receipts.map((r) => r.at));
    const last = Math.max(...receipts.map((r) => r.at));
    const firstEvent = Math.min(...receipts.map((r) => r.createdAt));
    return {
      endpoints: WEBHOOK_ENDPOINTS,
      creates: load,
      deliveries: receipts.length,
      expectedDeliveries: expected,
      duplicates: receipts.length - new Set(receipts.map((r) => `${r.endpoint} ${r.id}`)).size,
      deliveriesPerS: round(receipts.length / ((last - first) / 1000), 0),
      deliveriesPerSFromFirstEvent: round(receipts.length / ((last - firstEvent) / 1000), 0),
      lagMs: stats(receipts.map((r) => r.at - r.createdAt).filter((x) => !Number.isNaN(x))),
      drainS: round((last - first) / 1000, 2),
    };
  });
  server.close();
}

async function profilePhase(name, merchants) {
  const dur = Math.max(3, Math.round(DURATION / 2));
  await drain();
  await agent('prof-start');
  await agent('stats-start');
  const res = summarise(await cannon({ duration: dur, requests: createRequests(merchants, choiceBody) }));
  const { statements } = await agent('stats-stop');
  const { summary } = await agent('prof-stop');
  const totalMs = statements.reduce((a, s) => a + s.totalMs, 0);
  results.phases[name] = {
    note: 'separate pass with the V8 CPU profiler and per-statement timing on; not used for the figures',
    rps: res.rps,
    p50: res.p50,
    p99: res.p99,
    cpuProfile: summary,
    statements: statements.slice(0, 15).map((s) => ({ text: s.text.slice(0, 160), calls: s.calls, meanMs: round(s.meanMs, 2), pctOfSqlTime: round((100 * s.totalMs) / totalMs, 1) })),
  };
  log(`${name}: rps ${res.rps}; top areas ${summary.areas.slice(0, 5).map((a) => `${a.name} ${a.pct}%`).join(', ')}`);
}

// ---------------------------------------------------------------- the ceiling

async function captureOnce(key) {
  await sleep(400);
  await agent('capture-start');
  const res = await api(key, 'POST', '/v1/rewards', JSON.parse(choiceBody(0)), { 'idempotency-key': crypto.randomUUID() });
  await sleep(50);
  const { queries } = await agent('capture-stop');
  if (res.status !== 201) throw new Error(`capture request failed: ${res.status}`);
  // Everything up to the COMMIT of the transaction that wrote the reward; background statements
  // (relay, sweeps) after it are cut off, and those before it are avoided by taking the shortest capture.
  const insertAt = queries.findIndex((q) => /INSERT INTO "?rewards"?[\s(]/i.test(q.text));
  if (insertAt < 0) throw new Error(`no INSERT INTO rewards among: ${queries.map((q) => q.text.slice(0, 80)).join(' || ')}`);
  const txClient = queries[insertAt].client;
  const commitAt = queries.findIndex((q, i) => i > insertAt && q.client === txClient && /^\s*COMMIT/i.test(q.text));
  // A send made of one statement commits by itself: no COMMIT follows it.
  const inTransaction = queries.slice(0, insertAt).some((q) => q.client === txClient && /^\s*(START TRANSACTION|BEGIN)/i.test(q.text));
  const endAt = inTransaction ? commitAt : insertAt;
  if (endAt < 0) throw new Error('the transaction of the capture did not end');
  return { queries: queries.slice(0, endAt + 1), rewardId: res.body.reward.id };
}

async function captureCreatePlan(key, accountId) {
  log('capturing the SQL of one reward creation');
  const tries = [];
  for (let i = 0; i < 6; i++) tries.push(await captureOnce(key));
  tries.sort((a, b) => a.queries.length - b.queries.length);
  const shape = (t) => t.queries.map((q) => q.text).join('\u0000');
  const a = tries[0];
  const b = tries.find((t) => t !== a && shape(t) === shape(a));
  if (!b) throw new Error('no two identical captures of one creation');
  const statements = a.queries.map((q, i) => ({
    text: q.text,
    values: q.values,
    // Rows sent as one JSON parameter: the strings inside that differ between two captures (ids,
    // token hashes, times) are made fresh for each replay too.
    jsonAtoms: q.values.flatMap((v, j) => jsonDifferences(v, b.queries[i].values[j])),
    varying: q.values.map((v, j) => {
      const w = b.queries[i].values[j];
      if (Array.isArray(v)) return v.map((e, k) => !Array.isArray(w) || JSON.stringify(e) !== JSON.stringify(w[k]));
      return JSON.stringify(v) !== JSON.stringify(w);
    }),
  }));
  results.sqlCapture = {
    method: 'pg.Client#query wrapped by bench/agent.js, loaded only into the bench-started service (-r); shortest of 6 captures, cut at the COMMIT',
    statements: statements.length,
    clients: [...new Set(a.queries.map((q) => q.client))].length,
    sql: statements.map((s) => s.text.replace(/\s+/g, ' ').trim()),
  };
  log(`captured ${statements.length} statements`);
  return { statements, accountId };
}

function jsonDifferences(a, b) {
  const parse = (v) => {
    if (typeof v !== 'string' || !/^[[{]/.test(v)) return undefined;
    try {
      return JSON.parse(v);
    } catch {
      return undefined;
    }
  };
  const x = parse(a);
  const y = parse(b);
  if (x === undefined || y === undefined) return [];
  const out = [];
  const walk = (p, q) => {
    if (typeof p === 'string') {
      if (p !== q && !/[\s{"]/.test(p)) out.push(p);
    } else if (p && typeof p === 'object') {
      for (const k of Object.keys(p)) walk(p[k], q && typeof q === 'object' ? q[k] : undefined);
    }
  };
  walk(x, y);
  return out;
}

function freshLike(value) {
  if (value && value.$date) return new Date();
  if (value && value.$buffer) return crypto.randomBytes(Buffer.from(value.$buffer, 'base64').length);
  if (typeof value !== 'string') return value;
  if (/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(value)) return new Date().toISOString();
  const m = value.match(/^([a-z]+_)([A-Za-z0-9]+)$/);
  if (m) return m[1] + randomChars(m[2].length, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
  if (/^[0-9a-f-]{36}$/.test(value)) return crypto.randomUUID();
  if (/^[0-9a-f]+$/i.test(value)) return randomChars(value.length, '0123456789abcdef');
  return randomChars(value.length, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
}

function randomChars(n, alphabet) {
  const bytes = crypto.randomBytes(n);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[bytes[i] % alphabet.length];
  return s;
}

/** Values for one replay: per-request values (ids, keys, hashes, times) fresh, the account swapped. */
function instantiate(plan, accountId) {
  const map = new Map([[plan.accountId, accountId]]);
  const atoms = [];
  const isAtom = (v) => typeof v === 'string' && !/[\s{"]/.test(v);
  const add = (v) => {
    if (!map.has(v)) {
      map.set(v, freshLike(v));
      atoms.push(v);
    }
  };
  for (const s of plan.statements) for (const atom of s.jsonAtoms || []) add(atom);
  for (const s of plan.statements)
    s.values.forEach((v, j) => {
      const vary = s.varying[j];
      if (Array.isArray(v)) v.forEach((e, k) => vary[k] && isAtom(e) && add(e));
      else if (vary && isAtom(v)) add(v);
    });
  const substitute = (str) => {
    let out = str.split(plan.accountId).join(accountId);
    for (const atom of atoms) if (atom.length >= 8) out = out.split(atom).join(map.get(atom));
    return out;
  };
  const one = (v, vary) => {
    if (typeof v === 'string') {
      if (map.has(v)) return map.get(v);
      if (!vary) return v.includes(plan.accountId) ? substitute(v) : v;
      const sub = substitute(v);
      return sub !== v ? sub : freshLike(v);
    }
    if (v && v.$json) return JSON.parse(substitute(v.$json));
    if (v && (v.$date || v.$buffer)) return vary ? freshLike(v) : v.$date ? new Date(v.$date) : Buffer.from(v.$buffer, 'base64');
    return v;
  };
  return plan.statements.map((s) => s.values.map((v, j) => (Array.isArray(v) ? v.map((e, k) => one(e, s.varying[j][k])) : one(v, s.varying[j]))));
}

async function replayPhase(name, plan, accountIds) {
  const clients = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = new Client({ connectionString: DATABASE_URL });
    await c.connect();
    clients.push(c);
  }
  let turn = 0;
  const run = async (seconds, latencies, counts) => {
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      clients.map(async (c) => {
        while (Date.now() < end) {
          const values = instantiate(plan, accountIds[turn++ % accountIds.length]);
          const t = performance.now();
          try {
            for (let i = 0; i < plan.statements.length; i++) await c.query(plan.statements[i].text, values[i]);
            latencies.push(performance.now() - t);
            counts.ok++;
          } catch (error) {
            counts.errors++;
            counts.lastError = String(error.message);
            await c.query('ROLLBACK').catch(() => {});
          }
        }
      }),
    );
  };
  await run(WARMUP, [], { ok: 0, errors: 0 });
  const latencies = [];
  const counts = { ok: 0, errors: 0 };
  const t0 = performance.now();
  const r = await measured(name, async () => {
    await run(DURATION, latencies, counts);
    const s = stats(latencies);
    const elapsed = (performance.now() - t0) / 1000;
    return { rps: round(counts.ok / elapsed, 1), ok: counts.ok, p50: s.p50, p99: s.p99, errors: counts.errors, lastError: counts.lastError, connections: CONNECTIONS, statementsPerCreate: plan.statements.length };
  }, { quiesce: false });
  for (const c of clients) await c.end();
  return r;
}

// ---------------------------------------------------------------- report

function buildFigures() {
  const P = results.phases;
  const C = results.ceiling;
  const f = (figure, value, unit, extra = {}) => results.figures.push({ figure, value, unit, ...extra });
  const ratio = (a, b) => (a != null && b ? round(a / b, 2) : null);
  const one = P.create_choice_1_merchant;
  const many = P.create_choice_20_merchants;
  const c1 = C.create_choice_1_merchant;
  const c20 = C.create_choice_20_merchants;
  f('CHOICE create, 1 merchant (hot wallet row)', one.rps, 'req/s', { p50: one.p50, p99: one.p99, errors: one.errors, ceiling: c1.rps, ratio: ratio(one.rps, c1.rps), target: '≥ 0.50 of ceiling', met: ratio(one.rps, c1.rps) >= 0.5 });
  f('CHOICE create, 20 merchants', many.rps, 'req/s', { p50: many.p50, p99: many.p99, errors: many.errors, ceiling: c20.rps, ratio: ratio(many.rps, c20.rps), target: '≥ 0.70 of ceiling', met: ratio(many.rps, c20.rps) >= 0.7 });
  for (const [k, label, c] of [
    ['create_choice_1_merchant_half_peak', 'CHOICE create, 1 merchant, at half of peak rate', c1],
    ['create_choice_20_merchants_half_peak', 'CHOICE create, 20 merchants, at half of peak rate', c20],
  ]) {
    const h = P[k];
    f(label, h.rps, 'req/s', { p50: h.p50, p99: h.p99, errors: h.errors, ceiling: c.rps, ratio: ratio(h.rps, c.rps), target: 'p99 < 50 ms', met: h.p99 < 50 });
  }
  f('ceiling: replayed SQL, 1 merchant', c1.rps, 'creates/s', { p50: c1.p50, p99: c1.p99, errors: c1.errors });
  f('ceiling: replayed SQL, 20 merchants', c20.rps, 'creates/s', { p50: c20.p50, p99: c20.p99, errors: c20.errors });
  const fx = P.create_fixed_end_to_end;
  f('FIXED create (20 merchants)', fx.rps, 'req/s', { p50: fx.p50, p99: fx.p99, errors: fx.errors, ceiling: c20.rps, ratio: ratio(fx.rps, c20.rps) });
  f('FIXED create → card ISSUED', fx.issueMs.p50, 'ms p50', { p50: fx.issueMs.p50, p99: fx.issueMs.p99, errors: fx.notIssued, extraNote: `${fx.issuedPerS} issued/s` });
  const bk = P.create_bulk_500;
  f('bulk of 500 CHOICE, wall time per request', bk.wallMs.p50, 'ms p50', { p50: bk.wallMs.p50, p99: bk.wallMs.max, errors: 0, ceiling: c1.rps, ratio: ratio(bk.itemsPerS, c1.rps), target: '< 2000 ms', met: bk.wallMs.max < 2000, extraNote: `${bk.itemsPerS} items/s; p99 column = max of ${bk.bulks}` });
  for (const [k, label] of [
    ['get_rewards_list_100', 'GET /v1/rewards?page_size=100'],
    ['get_reward_by_id', 'GET /v1/rewards/{id}'],
    ['get_catalog_full', 'GET /v1/catalog (200, full)'],
    ['get_catalog_304', 'GET /v1/catalog (If-None-Match → 304)'],
  ]) {
    const g = P[k];
    f(label, g.rps, 'req/s', { p50: g.p50, p99: g.p99, errors: g.errors, ceiling: c1.rps, ratio: ratio(g.rps, c1.rps) });
  }
  const r304 = ratio(P.get_catalog_304.rps, P.get_catalog_full.rps);
  f('catalog 304 ÷ full', r304, '×', { target: '≥ 5×', met: r304 >= 5 });
  const wh = P.webhook_fanout;
  f(`webhook fan-out (${wh.endpoints} endpoints, events from ${wh.creates.rps} creates/s)`, wh.deliveriesPerS, 'deliveries/s', { p50: wh.lagMs.p50, p99: wh.lagMs.p99, errors: wh.expectedDeliveries - wh.deliveries + wh.duplicates, target: '≥ 1000/s', met: wh.deliveriesPerS >= 1000, extraNote: 'p50/p99 = lag from event commit to receipt, ms' });
}

function write() {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${STAMP}.json`);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), markdown(path.relative(ROOT, file)));
  log(`wrote ${path.relative(ROOT, file)} and BENCHMARKS.md`);
}

function markdown(resultFile) {
  const m = results.machine;
  const cell = (v) => (v === undefined || v === null ? '' : String(v));
  const rows = results.figures.map(
    (x) =>
      `| ${x.figure} | ${cell(x.value)} ${x.unit} | ${cell(x.p50)} | ${cell(x.p99)} | ${cell(x.errors)} | ${cell(x.ceiling)} | ${cell(x.ratio)} | ${cell(x.target)}${x.target ? (x.met ? ' ✅' : ' ❌') : ''} | ${cell(x.extraNote)} |`,
  );
  const phaseRows = Object.entries(results.phases)
    .filter(([, p]) => p.cpu)
    .map(([name, p]) => {
      const c = p.cpu;
      const waits = (p.pgWaits || []).slice(0, 3).map((w) => `${w.wait} ${w.avgBackends}`).join('; ');
      return `| ${name} | ${p.loadavg.join(' ')} | ${c.busyPct} | ${c.service} | ${c.postgres} | ${c.redis} | ${c.loadGenerator} | ${c.otherPct} | ${waits} |`;
    });
  const profiles = Object.entries(results.phases)
    .filter(([, p]) => p.cpuProfile)
    .map(([name, p]) => {
      const areas = p.cpuProfile.areas.slice(0, 10).map((a) => `${a.name} ${a.pct}%`).join(', ');
      const fns = p.cpuProfile.functions.slice(0, 8).map((a) => `\`${a.name}\` ${a.pct}%`).join(', ');
      const sql = p.statements.slice(0, 6).map((s) => `| ${s.calls} | ${s.meanMs} | ${s.pctOfSqlTime} | \`${s.text.replace(/\|/g, '\\|')}\` |`).join('\n');
      return `#### ${name} (${p.rps} req/s under the profiler)\n\nService self time by area: ${areas}.\n\nTop functions: ${fns}.\n\n| calls | mean ms (client side) | % of SQL time | statement |\n|---|---|---|---|\n${sql}\n`;
    });
  const analysisFile = path.join(__dirname, 'ANALYSIS.md');
  const analysis = fs.existsSync(analysisFile) ? fs.readFileSync(analysisFile, 'utf8') : '';
  return `# Benchmarks

Generated by \`npm run bench\` (bench/run.js) on ${results.startedAt.slice(0, 10)} (${results.startedAt} → ${results.finishedAt}); raw results: \`${resultFile}\`.

**Machine:** ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB RAM, ${m.os}; Node ${m.node}; ${m.postgres}; Redis ${m.redis}; autocannon ${m.autocannon}.
Postgres, Redis, the service and the load generator all share the same ${m.cores} cores.

**Command:** \`npm run bench\` (from a clean clone: \`npm ci && npm run bench\`; PostgreSQL and Redis running as for \`npm start\`).
Each phase: ${results.config.warmupS} s warm-up, then ${results.config.durationS} s measured, ${results.config.connections} connections
(\`BENCH_DURATION\`, \`BENCH_WARMUP\`, \`BENCH_CONNECTIONS\`). The service is \`npm start\`'s \`node dist/apps/api/src/main.js\`
(API on the main thread, the worker side on a worker thread of the same process) on a fresh database \`rewards_bench_<stamp>\` with \`RATE_LIMIT_PER_MINUTE=1000000\`,
\`LOG_LEVEL=warn\`, its own \`QUEUE_PREFIX\` and \`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\`. Rewards are CHOICE ${CHOICE_CENTS / 100} USD
with a fresh \`Idempotency-Key\` each; the 20-merchant runs go round-robin over 20 funded merchants. The "half of peak"
phases offer half the measured peak rate evenly spaced (open loop; latency counted from the scheduled send time), not with
autocannon's rate option, which sends each connection's per-second quota in a burst. Webhook fan-out: ${results.phases.webhook_fanout?.endpoints ?? 16}
endpoints on one merchant, answered 200 at once by a local receiver, events from CHOICE creates on that merchant.

**Ceiling:** the ${results.sqlCapture.statements === 1 ? 'single statement' : `${results.sqlCapture.statements} statements`} that one \`POST /v1/rewards\` (CHOICE) sends to PostgreSQL, captured from the
\`pg\` driver inside the bench-started service (bench/agent.js, preloaded with \`-r\`; product code untouched; \`pg_stat_statements\`
is not in \`shared_preload_libraries\` of the shared server, which was not restarted), replayed with \`pg\` at the same
concurrency (${results.config.connections} clients, one per connection) with per-request values (ids, key, hashes, timestamps) made fresh
and the account swapped; the service is stopped during the replay. "ratio" = HTTP figure ÷ ceiling (for reads and bulk items it is
only a scale reference).

## Results

| figure | value | p50 ms | p99 ms | errors | ceiling | ratio | target | note |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Ledger invariants (balances ≥ 0 and equal to the sums of their ledger rows) after every create phase and after the replay:
${results.invariants.every((i) => i.ok) ? 'all held' : 'VIOLATED, see the JSON'}. Rewards created = 2xx responses (plus at most one in-flight request per connection at the end) in every create phase:
${Object.values(results.phases).filter((p) => p.createdMatches2xx !== undefined).every((p) => p.createdMatches2xx) ? 'yes' : 'NO'}.

## Where the time goes

CPU during each measured phase (% of all ${m.cores} cores, from /proc), the 1/5/15-minute load average before it, and what the
bench database's backends were doing (pg_stat_activity sampled every 100 ms; average number of backends in that state):

| phase | load before | busy % | service % | postgres % | redis % | load generator % | other % | top Postgres states |
|---|---|---|---|---|---|---|---|---|
${phaseRows.join('\n')}

### Profiles (separate passes, V8 CPU profiler via node:inspector — what \`--cpu-prof\` records — and per-statement timing in the driver)

${profiles.join('\n')}

### SQL of one reward creation (the ceiling's script)

${results.sqlCapture.sql.length <= 3
    ? results.sqlCapture.sql.map((s, i) => `${i + 1}.\n\n\`\`\`sql\n${s.replace(/\), ([a-z_]+ AS \()/g, '),\n$1').replace(/ (SELECT|FROM jsonb|FROM unnest|WHERE EXISTS)/g, '\n    $1').trim()}\n\`\`\``).join('\n\n')
    : results.sqlCapture.sql.map((s, i) => `${i + 1}. \`${s.slice(0, 220).replace(/\|/g, '\\|')}${s.length > 220 ? '…' : ''}\``).join('\n')}

${analysis}`;
}

if (process.argv[2] === '--render') {
  // Re-renders BENCHMARKS.md from a results file (e.g. after editing bench/ANALYSIS.md).
  const file = path.resolve(process.argv[3]);
  Object.assign(results, JSON.parse(fs.readFileSync(file, 'utf8')));
  fs.writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), markdown(path.relative(ROOT, file)));
  fs.rmSync(TMP, { recursive: true, force: true });
  log(`rendered BENCHMARKS.md from ${path.relative(ROOT, file)}`);
} else
main().catch(async (error) => {
  log(`FAILED: ${error.stack || error}`);
  try {
    await stopService();
  } catch {
    // already gone
  }
  process.exit(1);
});
