#!/usr/bin/env node
'use strict';
// `npm run bench`: starts the service as `npm start` would (fresh database, workers in-process,
// rate limit lifted), seeds merchants, measures each HTTP path, replays the SQL of one reward
// creation straight through `pg` as the ceiling (interleaved with the create phases it judges), and
// writes bench/results/<stamp>.json and BENCHMARKS.md. `node bench/run.js --render <results.json>`
// re-renders BENCHMARKS.md from a results file. Settings and modules: bench/README.md.
const config = require('./config');
const { MERCHANTS, REPEATS, STAMP, STARTED, DB_NAME, ONLY, KEEP_DB, TMP, wanted, log } = config;
const { connect, invariants } = require('./database');
const { describeMachine } = require('./machine');
const { cannon, choiceBody, createRequests } = require('./load');
const { createPhase, fundedPhases, fixedPhase, bulkPhase, readPhase, profilePhase } = require('./phases');
const { ratioPhases } = require('./ratio-phases');
const { compileReplay } = require('./replay-values');
const { dashboardPhase } = require('./dashboard-phase');
const { scalePhase } = require('./scale-phase');
const { issuancePhases } = require('./issuance-phase');
const { buildFigures, writeResults, renderFrom } = require('./report');
const { seedMerchants, findFixedItem } = require('./seed');
const { buildIfNeeded, Service, api, dropDatabase } = require('./service');
const { captureCreatePlan } = require('./sql-capture');
const { webhookPhase } = require('./webhook-phase');
const { replayPhase } = require('./replay-phase');
const { expiryPhase } = require('./expiry-phase');
const { scheduledPhase } = require('./scheduled-phase');
const { reportPhase } = require('./report-phase');
const { startPgBouncer } = require('./pooler');

const ctx = {
  results: {
    startedAt: STARTED.toISOString(),
    config: {
      durationS: config.DURATION,
      warmupS: config.WARMUP,
      connections: config.CONNECTIONS,
      merchants: MERCHANTS,
      choiceValueCents: config.CHOICE_CENTS,
      repeats: REPEATS,
      // How the service reached PostgreSQL (BENCH_POOLER); the ceiling replay is always direct.
      pooler: { mode: 'direct', ceiling: 'direct' },
      // The worker thread's nice levels below the request thread (the service's WORKER_THREAD_NICE; docs/operations.md).
      workerThreadNice: config.SERVICE_ENV.WORKER_THREAD_NICE ?? '0 (default)',
    },
    machine: {},
    database: DB_NAME,
    sqlCapture: null,
    phases: {},
    ceiling: {},
    ratios: {},
    invariants: [],
    figures: [],
  },
  service: null,
  db: null,
  pooler: null,
};

async function main() {
  const { results } = ctx;
  buildIfNeeded();
  results.machine = await describeMachine();
  // Only the service goes through the pooler: the ceiling is the database's own figure, so the replay and
  // the bench's own sessions keep config.DATABASE_URL, straight to PostgreSQL.
  if (config.POOLER) {
    ctx.pooler = await startPgBouncer();
    Object.assign(config.SERVICE_ENV, ctx.pooler.serviceEnv());
    results.config.pooler = ctx.pooler.describe();
  }
  ctx.service = await Service.start();
  ctx.db = await connect();

  // The expiry, scheduled, report and dashboard phases make merchants of their own: a run of only those seeds none.
  const selfContained = ['expiry', 'scheduled', 'dashboard', 'report'];
  // A run of only webhooks (and those) needs the fan-out's merchant alone.
  const groups = ONLY ? [...ONLY] : [];
  // A run of only replay (and those) needs two: the replayed merchant and the live one.
  const small = [...selfContained, 'webhooks', 'replay'];
  const seedCount = !ONLY
    ? MERCHANTS + 1
    : groups.every((g) => selfContained.includes(g))
      ? 0
      : groups.every((g) => small.includes(g))
        ? groups.includes('replay')
          ? 2
          : 1
        : MERCHANTS + 1;
  const { merchants } = seedCount ? await seedMerchants(seedCount) : { merchants: [] };
  const hot = merchants[0];
  const twenty = merchants.slice(0, MERCHANTS);
  if (hot && seedCount > 1) results.config.fixedItem = await findFixedItem(hot);

  // The ceiling's script: the SQL of one creation, captured before any load; its per-request values checked at once.
  let replay = null;
  if (wanted('ceiling') || wanted('ratio')) {
    const { plan, summary } = await captureCreatePlan(ctx.service, hot);
    results.sqlCapture = summary;
    replay = { plan, valuesFor: compileReplay(plan) };
  }

  // 1. CHOICE creation, hot wallet row and 20 merchants, each run followed by its ceiling; then at half of the median peak
  if (wanted('create') || wanted('ratio') || replay) await ratioPhases(ctx, merchants, replay);
  if (wanted('create')) {
    const halfOf = (key) => Math.max(1, Math.round(results.phases[key].rps / 2));
    await createPhase(ctx, 'create_choice_1_merchant_half_peak', [hot], choiceBody, { overallRate: halfOf('create_choice_1_merchant') });
    await createPhase(ctx, 'create_choice_20_merchants_half_peak', twenty, choiceBody, { overallRate: halfOf('create_choice_20_merchants') });
  }

  // 1b. CHOICE sends converted from another wallet against same-currency ones, paired
  if (wanted('fx')) await fundedPhases(ctx, twenty);

  // 2. FIXED end to end
  if (wanted('fixed')) await fixedPhase(ctx, twenty, results.config.fixedItem);

  // 3. Bulk of 500
  if (wanted('bulk')) await bulkPhase(ctx, merchants[1]);

  // 4. Reads
  if (wanted('reads')) {
    if (!ONLY || !ONLY.has('create')) await cannon({ duration: 2, requests: createRequests([hot], choiceBody) });
    const listed = await api(hot.key, 'GET', '/v1/rewards?page_size=100');
    const ids = listed.body.rewards.map((r) => r.id);
    await readPhase(ctx, 'get_rewards_list_100', hot.key, () => '/v1/rewards?page_size=100');
    let n = 0;
    await readPhase(ctx, 'get_reward_by_id', hot.key, () => `/v1/rewards/${ids[n++ % ids.length]}`);
  }
  if (wanted('catalog')) {
    const full = await fetch(`${config.BASE}/v1/catalog`, { headers: { authorization: `Bearer ${hot.key}` } });
    const etag = full.headers.get('etag');
    await full.text();
    await readPhase(ctx, 'get_catalog_full', hot.key, () => '/v1/catalog', {}, 200);
    await readPhase(ctx, 'get_catalog_304', hot.key, () => '/v1/catalog', { 'if-none-match': etag }, 304);
  }

  // 5. Webhook fan-out
  if (wanted('webhooks')) await webhookPhase(ctx, merchants[merchants.length - 1]);

  // 5a. Live-delivery lag to other endpoints while a 100,000-event replay runs
  if (wanted('replay')) await replayPhase(ctx, merchants[0], merchants[1]);

  // 5b. The expiry drain: 100,000 rewards of one merchant due at once, drained while it keeps sending
  if (wanted('expiry')) await expiryPhase(ctx);

  // 5b'. Scheduled sends: 100,000 (BENCH_SCHEDULED_COUNT) due in the same minute, drained while it keeps sending
  if (wanted('scheduled')) await scheduledPhase(ctx);

  // 5c. A CSV report of a merchant with a million rewards, built by the worker while a client keeps sending
  if (wanted('report')) await reportPhase(ctx);

  // 6. The dashboard's Rewards page, on a merchant with 100,000 rewards, in Chromium
  if (wanted('dashboard')) await dashboardPhase(ctx);

  // 7. Reads on a merchant with a million rewards against one with a thousand
  if (wanted('scale')) await scalePhase(ctx);

  // 8. Profiles (separate short passes, so the sampling profiler does not tax the measured figures)
  if (wanted('profile')) {
    await profilePhase(ctx, 'profile_create_1_merchant', [hot]);
    await profilePhase(ctx, 'profile_create_20_merchants', twenty);
  }

  // 8. Card issuance with a 500 ms supplier (restarts the service with its settings, so it runs last)
  if (wanted('issuance')) await issuancePhases(ctx, merchants.slice(2, MERCHANTS), results.config.fixedItem);

  await ctx.service.stop();
  if (ctx.pooler) await ctx.pooler.stop();
  if (replay) results.invariants.push(await invariants(ctx.db, 'after the ceiling replays', merchants.map((m) => m.accountId)));
  await ctx.db.end();
  if (!KEEP_DB) await dropDatabase();
  results.finishedAt = new Date().toISOString();
  if (ONLY) {
    log(`partial run (${[...ONLY].join(',')})`);
    return writeResults(results, STAMP, { partial: true });
  }
  buildFigures(results);
  writeResults(results, STAMP);
}

if (process.argv[2] === '--render') {
  renderFrom(process.argv[3]);
  require('node:fs').rmSync(TMP, { recursive: true, force: true });
} else {
  // Interrupted while the service is paused: continue it, or it would stay frozen after the bench is gone.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      if (ctx.service) {
        ctx.service.resume();
        ctx.service.child.kill('SIGTERM');
      }
      if (ctx.pooler) ctx.pooler.stopNow();
      process.exit(1);
    });
  }
  main().catch(async (error) => {
    log(`FAILED: ${error.stack || error}`);
    try {
      if (ctx.service) await ctx.service.stop();
    } catch {
      // already gone
    }
    try {
      if (ctx.pooler) await ctx.pooler.stop();
    } catch {
      // already gone
    }
    process.exit(1);
  });
}
