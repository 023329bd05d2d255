'use strict';
// The settings of one bench run: the knobs read from the environment (listed in bench/README.md), and
// the names derived from the start time (database, queue prefix, result file). Read once, at load.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const env = process.env;
const ROOT = path.join(__dirname, '..');
const PG = (env.BENCH_PG || 'postgres://postgres@127.0.0.1:5432').replace(/\/$/, '');
const PORT = Number(env.BENCH_PORT || 3900);
const STARTED = new Date();
const STAMP = STARTED.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
const DB_NAME = `rewards_bench_${STAMP}`;
const BASE = `http://127.0.0.1:${PORT}`;
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'rewards-bench-'));
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((g) => g.trim())) : null;
const REPEATS = Number(env.BENCH_REPEATS || 3);
if (!Number.isInteger(REPEATS) || REPEATS < 1) throw new Error(`BENCH_REPEATS must be a whole number ≥ 1, not ${env.BENCH_REPEATS}`);
const POOLER = env.BENCH_POOLER || null;
if (POOLER !== null && POOLER !== 'pgbouncer') throw new Error(`BENCH_POOLER must be pgbouncer or unset, not ${POOLER}`);
// 4 × the 2 cores, the top of docs/scaling.md's "2 to 4 × the database server's cores": the serving sessions that work at once
// (2 to 3 running, a few idle in transaction waiting for the service) plus the lock waiters of a hot wallet row.
const POOL_SIZE = Number(env.BENCH_POOLER_POOL_SIZE || 8);
if (!Number.isInteger(POOL_SIZE) || POOL_SIZE < 1) throw new Error(`BENCH_POOLER_POOL_SIZE must be a whole number ≥ 1, not ${env.BENCH_POOLER_POOL_SIZE}`);

const config = {
  ROOT,
  RESULTS_DIR: path.join(__dirname, 'results'),
  TMP,
  PG,
  PORT,
  BASE,
  STARTED,
  STAMP,
  DB_NAME,
  DATABASE_URL: `${PG}/${DB_NAME}`,
  DURATION: Number(env.BENCH_DURATION || 10),
  WARMUP: Number(env.BENCH_WARMUP || 3),
  CONNECTIONS: Number(env.BENCH_CONNECTIONS || 16),
  // How often each ratio phase (service, then its replayed ceiling) runs; figures give the median and the spread.
  REPEATS,
  MERCHANTS: 20,
  BULK_COUNT: Number(env.BENCH_BULK_COUNT || 5),
  // 16 endpoints: with 4, deliveries/s is bounded by how fast the creates produce events, not by the fan-out.
  WEBHOOK_ENDPOINTS: Number(env.BENCH_WEBHOOK_ENDPOINTS || 16),
  // Creates/s of the webhook phase's paced run; unset: half of the measured peak.
  WEBHOOK_RATE: Number(env.BENCH_WEBHOOK_RATE || 0),
  CHOICE_CENTS: 5000,
  ONLY,
  // BENCH_POOLER=pgbouncer: the service reaches PostgreSQL through a PgBouncer of the bench's own (bench/pooler.js);
  // DATABASE_URL above stays direct: the bench's own sessions and the ceiling replay never go through it.
  POOLER,
  POOL_SIZE,
  // The name the bench's own database sessions carry, so they can be told apart from the service's.
  APPLICATION_NAME: 'rewards-bench',
  /** Extra node flags for the service only (e.g. --trace-gc, which NODE_OPTIONS refuses). */
  NODE_ARGS: env.BENCH_NODE_ARGS ? env.BENCH_NODE_ARGS.split(/\s+/).filter(Boolean) : [],
  KEEP_DB: Boolean(env.BENCH_KEEP_DB),
};

/** Whether a phase group runs: all of them, unless BENCH_ONLY names some. */
config.wanted = (group) => !ONLY || ONLY.has(group);

/**
 * The environment of the service the bench starts: `npm start`'s, with the rate limit lifted. With
 * BENCH_POOLER, run.js adds the pooler's DATABASE_URL and DATABASE_DIRECT_URL once it has started.
 */
config.SERVICE_ENV = {
  ...env,
  PORT: String(PORT),
  PUBLIC_BASE_URL: BASE,
  DATABASE_URL: config.DATABASE_URL,
  // Direct unless BENCH_POOLER: the same as DATABASE_URL, whatever the caller's environment says (a different one means a pooler).
  DATABASE_DIRECT_URL: config.DATABASE_URL,
  QUEUE_PREFIX: `bench_${STAMP}`,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '1000000',
  MAIL_OUTBOX_DIR: path.join(TMP, 'outbox'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  RUN_WORKERS: 'true',
  // Not a developer's .env (the service reads one at start: README, Configuration): the bench's settings are these.
  ENV_FILE: '/dev/null',
  // The expiry phase's rewards fall due while it watches: sweep every second rather than every minute.
  EXPIRY_SWEEP_INTERVAL_MS: '1000',
  // BENCH_READ_PG: a streaming replica of BENCH_PG (bench/replica-pair.js starts a pair): the service reads lists and reports from it.
  ...(env.BENCH_READ_PG ? { DATABASE_READ_URL: `${env.BENCH_READ_PG.replace(/\/$/, '')}/${DB_NAME}` } : {}),
};

config.log = (...args) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${args.join(' ')}\n`);
config.sleep = (ms) => new Promise((r) => setTimeout(r, ms));

module.exports = config;
