'use strict';
// The report: the figures (each with its target) built from the phase results, the results file
// bench/results/<stamp>.json, and BENCHMARKS.md rendered from it (bench/ANALYSIS.md appended).
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, RESULTS_DIR, CHOICE_CENTS, log } = require('./config');
const { round } = require('./numbers');

function buildFigures(results) {
  const P = results.phases;
  const C = results.ceiling;
  const R = results.ratios || {};
  const f = (figure, value, unit, extra = {}) => results.figures.push({ figure, value, unit, ...extra });
  const ratio = (a, b) => (a != null && b ? round(a / b, 2) : null);
  // The ratio phases: the median of the paired (service, ceiling) ratios, with their spread.
  const paired = (key, phase, ceiling) => {
    const r = R[key];
    if (!r) return { ratio: ratio(phase.rps, ceiling.rps) };
    return {
      ratio: r.median,
      ratioMin: r.min,
      ratioMax: r.max,
      extraNote: `median of ${r.n} interleaved runs; req/s ÷ ceiling per run: ${r.runs.map((x) => `${x.service} ÷ ${x.ceiling}`).join(', ')}`,
    };
  };
  const one = P.create_choice_1_merchant;
  const many = P.create_choice_20_merchants;
  const c1 = C.create_choice_1_merchant;
  const c20 = C.create_choice_20_merchants;
  const r1 = paired('create_choice_1_merchant', one, c1);
  const r20 = paired('create_choice_20_merchants', many, c20);
  f('CHOICE create, 1 merchant (hot wallet row)', one.rps, 'req/s', { p50: one.p50, p99: one.p99, errors: one.errors, ceiling: c1.rps, ...r1, target: '≥ 0.50 of ceiling', met: r1.ratio >= 0.5 });
  f('CHOICE create, 20 merchants', many.rps, 'req/s', { p50: many.p50, p99: many.p99, errors: many.errors, ceiling: c20.rps, ...r20, target: '≥ 0.70 of ceiling', met: r20.ratio >= 0.7 });
  for (const [k, label, c] of [
    ['create_choice_1_merchant_half_peak', 'CHOICE create, 1 merchant, at half of peak rate', c1],
    ['create_choice_20_merchants_half_peak', 'CHOICE create, 20 merchants, at half of peak rate', c20],
  ]) {
    const h = P[k];
    f(label, h.rps, 'req/s', { p50: h.p50, p99: h.p99, errors: h.errors, ceiling: c.rps, ratio: ratio(h.rps, c.rps), target: 'p99 < 50 ms', met: h.p99 < 50 });
  }
  const ceilingNote = (c) => (c.runs ? `median of ${c.runs.length} runs, ${c.rpsMin}–${c.rpsMax} creates/s` : undefined);
  f('ceiling: replayed SQL, 1 merchant', c1.rps, 'creates/s', { p50: c1.p50, p99: c1.p99, errors: c1.errors, extraNote: ceilingNote(c1) });
  f('ceiling: replayed SQL, 20 merchants', c20.rps, 'creates/s', { p50: c20.p50, p99: c20.p99, errors: c20.errors, extraNote: ceilingNote(c20) });
  const funded = P.funded_vs_same_currency;
  if (funded) {
    f('CHOICE create, 20 merchants, fundingCurrency (EUR from USD) ÷ same currency: cost', funded.costRatio, '×', {
      target: '≤ 1.2×',
      met: funded.costRatio <= 1.2,
      extraNote: `median of ${funded.runs.length} back-to-back pairs; req/s same ÷ funded: ${funded.runs.map((x) => `${x.sameRps} ÷ ${x.fundedRps}`).join(', ')}`,
    });
  }
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
  const dp = P.dashboard_rewards_page;
  if (dp) {
    const seeded = `${dp.seededRewards.toLocaleString('en-US')} rewards`;
    f(`dashboard Rewards page, 100 rows, merchant with ${seeded}: first load to table visible`, dp.coldMs.p50, 'ms p50', { p50: dp.coldMs.p50, p99: dp.coldMs.max, errors: 0, target: '< 1000 ms', met: dp.coldMs.p50 < 1000, extraNote: `Chromium, empty cache each time; p99 column = max of ${dp.coldMs.n}; reload ${dp.warmMs.p50} ms p50` });
    f('dashboard JavaScript shipped on first load (gzipped)', dp.javascript.gzipKb, 'kB', { target: '< 250 kB', met: dp.javascript.gzipKb < 250, extraNote: `${dp.javascript.files} file(s), ${round(dp.javascript.bytes / 1024, 1)} kB before compression` });
  }
  const sc = P.scale_reads;
  if (sc) {
    const big = sc.seededRewards.big.toLocaleString('en-US');
    const small = sc.seededRewards.small.toLocaleString('en-US');
    for (const [k, label] of [
      ['list_first_page', 'GET /v1/rewards?page_size=100, first page'],
      ['list_deep_page', `GET /v1/rewards?page_size=100&page=${sc.deepPage}`],
      ['list_status_sent', 'GET /v1/rewards?page_size=100&status=SENT'],
      ['list_external_id', 'GET /v1/rewards?page_size=100&external_id=…'],
      ['overview', 'GET /v1/account/overview'],
      ['list_campaign_last_hour', 'GET /v1/rewards?page_size=100&campaign=…&created_gte=<an hour ago>'],
      ['list_status_last_hour', 'GET /v1/rewards?page_size=100&status=SENT&created_gte=<an hour ago>'],
      ['list_campaign_last_10_min', 'GET /v1/rewards?page_size=100&campaign=…&created_gte=<10 min before the merchant’s newest> (60 matches on either)'],
      ['list_status_last_10_min', 'GET /v1/rewards?page_size=100&status=SENT&created_gte=<10 min before the merchant’s newest> (150 matches on either)'],
      ['overview_daily_90', 'GET /v1/account/overview/daily?days=90'],
    ]) {
      const r = sc.p50Ms[k];
      if (!r) continue;
      f(`${label}: merchant with ${big} rewards ÷ with ${small}`, r.ratio, '× p50', { p50: r.big, target: '≤ 1.5×', met: r.ratio <= 1.5, extraNote: `${r.big} ms vs ${r.small} ms p50, one request at a time` });
    }
    if (sc.dailyQueryMs !== undefined) {
      f(`Overview chart query (value sent per day, 90 days), merchant with ${big} rewards`, sc.dailyQueryMs, 'ms', { target: '< 50 ms', met: sc.dailyQueryMs < 50, extraNote: 'EXPLAIN ANALYZE execution time, median of 5' });
    }
    f(`page ${sc.deepPage} ÷ page 1, merchant with ${big} rewards`, sc.p50Ms.deep_vs_first_page_big, '× p50', { target: '≤ 1.5×', met: sc.p50Ms.deep_vs_first_page_big <= 1.5 });
    const l = P.scale_get_rewards_list_100;
    const d = P.scale_get_reward_by_id;
    f(`GET /v1/rewards?page_size=100 ÷ GET /v1/rewards/{id}, merchant with ${big} rewards`, sc.listVsDetailThroughput, '× req/s', { p50: l.p50, p99: l.p99, errors: l.errors + d.errors, target: '≥ 0.25', met: sc.listVsDetailThroughput >= 0.25, extraNote: `${l.rps} vs ${d.rps} req/s` });
  }
  const it = P.issuance_throughput;
  if (it) {
    f('card issuance throughput, 1 worker, supplier 500 ms, ISSUANCE_CONCURRENCY=64, DB pool 20', it.issuedPerS, 'cards/s', { errors: it.notIssued + it.stillPending, target: `≥ ${it.targetPerS}/s`, met: it.issuedPerS >= it.targetPerS, extraNote: `backlog of ${it.cards} FIXED cards over ${it.merchants} merchants (bulks of 100, ${it.createdPerS} created/s); middle 80 % of the cards` });
    const ih = P.issuance_fixed_half_peak;
    f('FIXED create → card ISSUED at half of peak issuance, supplier 500 ms', ih.issueMs.p50, 'ms p50', { p50: ih.issueMs.p50, p99: ih.issueMs.p99, errors: ih.notIssued + ih.stillPending, target: 'p50 < 1500, p99 < 3000', met: ih.issueMs.p50 < 1500 && ih.issueMs.p99 < 3000, extraNote: `${ih.offeredRate} creates/s offered; create p50 ${ih.p50} ms` });
    const ic = P.issuance_choice_5_picks;
    f('CHOICE: 5 picks of one reward in a row, supplier 500 ms', ic.maxMs, 'ms max', { p50: ic.p50, p99: ic.p99, errors: 0, target: 'each < 100 ms', met: ic.over100 === 0, extraNote: `${ic.picks} picks over ${ic.rewards} rewards; ${ic.over100} took 100 ms or more` });
  }
  const ex = P.expiry_drain_100k;
  if (ex) {
    f(`expiry drain, ${ex.seededRewards.toLocaleString('en-US')} rewards of one merchant due at once`, ex.drainS, 's', {
      p50: ex.createsDuring.p50,
      p99: ex.createsDuring.p99,
      errors: ex.seededRewards - ex.expired + ex.createsDuring.errors,
      extraNote: `${ex.expiredPerS} expired/s; p50/p99 = creates to the same merchant during the drain at ${ex.sendRate}/s (before it: ${ex.createsBefore.p50}/${ex.createsBefore.p99} ms)`,
    });
  }
  scheduledFigures(P, f);
  reportFigures(P, f);
  replayFigures(P, f);
  const lagNote = (run) =>
    `lag from event commit to receipt; first third p50/p99 ${run.lagFirstThirdMs.p50}/${run.lagFirstThirdMs.p99} ms, last third ${run.lagLastThirdMs.p50}/${run.lagLastThirdMs.p99} ms; ${run.deliveriesPerS} deliveries/s`;
  const whHalf = P.webhook_fanout_half_peak;
  if (whHalf) {
    const flat = whHalf.lagLastThirdMs.p99 <= Math.max(1000, 1.5 * whHalf.lagFirstThirdMs.p99);
    const of = !whHalf.peakCreatesPerS ? 'fixed rate' : `half of ${whHalf.peakCreatesPerS} creates/s${peakWithEndpoints(results) ? '' : ' without endpoints'}`;
    f(`webhook lag at half of peak (${whHalf.endpoints} endpoints, ${whHalf.creates.rps} creates/s, ${of})`, whHalf.lagMs.p99, 'ms p99', {
      p50: whHalf.lagMs.p50,
      p99: whHalf.lagMs.p99,
      errors: whHalf.expectedDeliveries - whHalf.deliveries + whHalf.duplicates,
      target: 'p99 < 1000 ms and flat',
      met: whHalf.lagMs.p99 < 1000 && flat,
      extraNote: lagNote(whHalf),
    });
  }
  const whStrict = P.webhook_fanout_half_create_peak;
  if (whStrict) {
    f(`webhook lag at half of the peak without endpoints (${whStrict.endpoints} endpoints, ${whStrict.creates.rps} creates/s, half of ${whStrict.peakCreatesPerS})`, whStrict.lagMs.p99, 'ms p99', {
      p50: whStrict.lagMs.p50,
      p99: whStrict.lagMs.p99,
      errors: whStrict.expectedDeliveries - whStrict.deliveries + whStrict.duplicates,
      extraNote: `a stricter load, reported: ${whStrict.offeredDeliveriesPerS} deliveries/s offered; ${lagNote(whStrict)}`,
    });
  }
  const wh = P.webhook_fanout;
  const threads = wh.serviceThreads ? `; service threads (% of a core): API ${wh.serviceThreads.mainThreadPctOfCore}, worker ${wh.serviceThreads.busiestOtherThreadPctOfCore}` : '';
  f(`webhook fan-out at full rate (${wh.endpoints} endpoints, events from ${wh.creates.rps} creates/s)`, wh.deliveriesPerS, 'deliveries/s', { p50: wh.lagMs.p50, p99: wh.lagMs.p99, errors: wh.expectedDeliveries - wh.deliveries + wh.duplicates, target: '≥ 1000/s', met: wh.deliveriesPerS >= 1000, extraNote: `p50/p99 = lag from event commit to receipt, ms${wh.offeredDeliveriesPerS ? `; offered ${wh.offeredDeliveriesPerS}/s, received ${wh.deliveriesPerSDuringLoad}/s during the load` : ''}${threads}${wh.topStatements?.length ? `; busiest statement: \`${wh.topStatements[0].statement.slice(0, 80).replace(/\|/g, '\\|')}\` (${wh.topStatements[0].avgActiveBackends} backends)` : ''}` });
}

/**
 * Scheduled sends falling due together (docs/delivery.md, Scheduled sends): all SENT within 60 s of their time,
 * while sends to the same merchant keep their p99 within 1.5× of the quiet minute before (bench/scheduled-phase.js).
 * A run with BENCH_SCHEDULED_SPREAD sends to other merchants: its ratio is shown for analysis, without the target.
 */
function scheduledFigures(P, f) {
  const key = Object.keys(P).find((k) => k.startsWith('scheduled_drain_'));
  if (!key) return;
  const s = P[key];
  const count = s.scheduledRewards.toLocaleString('en-US');
  f(`scheduled sends: ${count} due at once → all SENT`, s.dueToAllSentS, 's', {
    errors: s.scheduledRewards - s.sent,
    target: '≤ 60 s',
    met: s.dueToAllSentS !== null && s.dueToAllSentS <= 60 && s.sent === s.scheduledRewards,
    extraNote: `${s.sentPerS} SENT/s over ${s.drainS} s, the first ${s.firstSendAfterDueS} s after their time; their e-mails follow from the ${s.mailJobs} mail jobs`,
  });
  const ratio = round(s.createsDuring.p99 / s.createsBefore.p99, 2);
  const spread = s.sendsSpreadOver ? `, spread over ${s.sendsSpreadOver} other merchants; BENCH_SCHEDULED_SPREAD, for analysis, not the target` : ', same merchant';
  f(`send p99 during the scheduled drain ÷ before it (${s.sendRate}/s${spread})`, ratio, '×', {
    p50: s.createsDuring.p50,
    p99: s.createsDuring.p99,
    errors: s.createsBefore.errors + s.createsDuring.errors,
    ...(s.sendsSpreadOver ? {} : { target: '≤ 1.5×', met: ratio <= 1.5 }),
    extraNote: `before the rewards fell due: p50/p99 ${s.createsBefore.p50}/${s.createsBefore.p99} ms over ${s.createsBefore.n} sends; during: ${s.createsDuring.n} sends`,
  });
}

/**
 * A rewards report of the big merchant (docs/reports.md): built in under a minute, the process growing by less than
 * 100 MB, while sends to that merchant keep their p99 (within 1.5× of the same sends without a report; within 1.2×
 * when the report reads from the replica, BENCH_READ_PG) (bench/report-phase.js).
 */
function reportFigures(P, f) {
  const r = P.report_rewards;
  if (!r) return;
  const onReplica = r.replicaRowsRead !== undefined;
  f(`rewards report of ${r.rows.toLocaleString('en-US')} rewards (CSV)${onReplica ? ', read from the replica' : ''}: build time`, r.buildS, 's', {
    target: '< 60 s, RSS growth < 100 MB',
    met: r.buildS < 60 && r.rssGrowthMb < 100,
    extraNote: `${r.rowsPerS} rows/s, ${r.csvMb} MB; RSS ${r.rssBeforeMb} MB sending alone → ${r.rssMaxMb} MB max while building (+${r.rssGrowthMb} MB)${onReplica ? `; the replica handed out ${r.replicaRowsRead} rows meanwhile` : ''}`,
  });
  const ratio = round(r.sendsDuring.p99 / r.sendsWithout.p99, 2);
  const limit = onReplica ? 1.2 : 1.5;
  f(`send p99 during the report ÷ without it (same merchant, ${r.sendRate}/s${onReplica ? ', sends on the primary' : ''})`, ratio, '×', {
    p50: r.sendsDuring.p50,
    p99: r.sendsDuring.p99,
    errors: r.sendsWithout.errors + r.sendsDuring.errors,
    target: `≤ ${limit}×`,
    met: ratio <= limit,
    extraNote: `without a report: p50/p99 ${r.sendsWithout.p50}/${r.sendsWithout.p99} ms`,
  });
}

/** A replay of an endpoint's past events beside live deliveries of another merchant (bench/replay-phase.js). */
function replayFigures(P, f) {
  const during = P.replay_live_during_replay;
  const before = P.replay_live_baseline;
  if (!during || !before) return;
  const rp = during.replay;
  // Events that arrived at least once: k duplicates do not stand in for k missing events.
  const arrived = rp.delivered - rp.duplicates;
  const whole = arrived >= rp.eventCount;
  f(`live webhook lag during a replay of ${rp.eventCount.toLocaleString('en-US')} events (${during.liveCreatesPerS} creates/s on another merchant)`, during.liveLagMs.p99, 'ms p99', {
    p50: during.liveLagMs.p50,
    p99: during.liveLagMs.p99,
    errors: Math.max(0, rp.eventCount - arrived) + rp.duplicates,
    target: 'p99 < 1000 ms',
    met: during.liveLagMs.p99 < 1000 && whole,
    extraNote: `without a replay: p50/p99 ${before.liveLagMs.p50}/${before.liveLagMs.p99} ms; replay ${whole ? `complete in ${rp.wholeReplayS} s` : `incomplete (${arrived} of ${rp.eventCount})`}, ${rp.duplicates} duplicates`,
  });
}

/**
 * Whether the webhook phase's "half of peak" is half of the peak with the endpoints (its own full-rate run): so
 * from 2026-11-23 06:09 on, when the run at half of the peak without endpoints joined it. Before, the peak was
 * that of the create phases, without endpoints.
 */
function peakWithEndpoints(results) {
  return Boolean(results.phases.webhook_fanout_half_create_peak);
}

/** How the webhook phase chose its paced rates, as the results record it. */
function webhookMethod(results) {
  const half = results.phases.webhook_fanout_half_peak;
  if (!half) return '';
  if (!half.peakCreatesPerS) return `The paced run is at a fixed ${half.creates.rps} creates/s (\`BENCH_WEBHOOK_RATE\`).`;
  if (!peakWithEndpoints(results)) return 'The paced run is at half of the peak create rate of the create phases, where the merchant has no endpoints.';
  return `After a ${results.config.warmupS} s warm-up, a full-rate run (closed loop) gives the peak create rate with the endpoints, and the lag
target is measured at half of it (open loop, 15 s or \`BENCH_DURATION\`, whichever is longer); a run at half of the peak without endpoints
is reported beside it.`;
}

/** Writes the results file and BENCHMARKS.md; a partial run (BENCH_ONLY) writes only partial-<stamp>.json. */
function writeResults(results, stamp, { partial = false } = {}) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${partial ? 'partial-' : ''}${stamp}.json`);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  if (partial) return log(`partial run: wrote ${path.relative(ROOT, file)}`);
  fs.writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), markdown(results, path.relative(ROOT, file)));
  log(`wrote ${path.relative(ROOT, file)} and BENCHMARKS.md`);
}

/** Re-renders BENCHMARKS.md from a results file (e.g. after editing bench/ANALYSIS.md). */
function renderFrom(resultsFile) {
  const file = path.resolve(resultsFile);
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), markdown(results, path.relative(ROOT, file)));
  log(`rendered BENCHMARKS.md from ${path.relative(ROOT, file)}`);
}

/** How the service reached PostgreSQL in the run (results of runs before BENCH_POOLER existed were all direct). */
function connections(results) {
  const p = results.config.pooler;
  if (!p || p.mode === 'direct') return 'the service straight to PostgreSQL (no pooler); the ceiling replay too.';
  return `the service's \`DATABASE_URL\` through PgBouncer ${p.version} (\`BENCH_POOLER=pgbouncer\`: ${p.poolMode} mode, a pool of ${p.poolSize} server sessions, reserve ${p.reservePoolSize}),
its \`DATABASE_DIRECT_URL\` (LISTEN, migrations) straight to PostgreSQL; the ceiling replay straight to PostgreSQL, as the database's own figure.
PgBouncer's CPU is shown beside "other %" below.`;
}

function markdown(results, resultFile) {
  const m = results.machine;
  const repeats = results.config.repeats; // absent in results of runs made before the ratio phases were repeated
  const cell = (v) => (v === undefined || v === null ? '' : String(v));
  const ratioCell = (x) => `${cell(x.ratio)}${x.ratioMin != null ? ` (${x.ratioMin}–${x.ratioMax})` : ''}`;
  const rows = results.figures.map(
    (x) =>
      `| ${x.figure} | ${cell(x.value)} ${x.unit} | ${cell(x.p50)} | ${cell(x.p99)} | ${cell(x.errors)} | ${cell(x.ceiling)} | ${ratioCell(x)} | ${cell(x.target)}${x.target ? (x.met ? ' ✅' : ' ❌') : ''} | ${cell(x.extraNote)} |`,
  );
  const phaseRows = Object.entries(results.phases)
    .filter(([, p]) => p.cpu)
    .map(([name, p]) => {
      const c = p.cpu;
      const waits = (p.pgWaits || []).slice(0, 3).map((w) => `${w.wait} ${w.avgBackends}`).join('; ');
      // Results of runs before the checkpoint figures were recorded have no `wal`.
      const wal = p.wal ? `${p.wal.checkpointsTimed} / ${p.wal.checkpointsRequested} | ${p.wal.walMb}` : ' | ';
      return `| ${name} | ${p.loadavg.join(' ')} | ${c.busyPct} | ${c.service} | ${c.postgres} | ${c.redis} | ${c.loadGenerator} | ${c.otherPct}${c.pgbouncer != null ? ` (+ pgbouncer ${c.pgbouncer})` : ''} | ${waits} | ${wal} |`;
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
  const repeatedRatios = repeats
    ? `
**Ratio phases:** the two CHOICE create phases judged against the ceiling (1 and 20 merchants) run ${repeats} times each
(\`BENCH_REPEATS\`), every run followed at once by its ceiling, because the shared box's load swings a ratio taken minutes
apart by tens of percent. Their rows give the median of the runs; the ratio column gives the median of the ${repeats} paired
ratios and, in brackets, the lowest and highest; the note lists each run (the runs are in the JSON as \`<phase>#<n>\`).
`
    : '';
  const serviceDuringReplay = repeats
    ? `the service is paused (SIGSTOP, caught between transactions) during each replay, after its background work has drained, and the
replayed rewards' e-mail jobs and events are marked failed / dispatched afterwards so the resumed service does not process them.
A replay that violates a unique key or writes no reward stops the bench instead of counting as throughput.`
    : 'the service is stopped during the replay.';
  return `# Benchmarks

Generated by \`npm run bench\` (bench/run.js) on ${results.startedAt.slice(0, 10)} (${results.startedAt} → ${results.finishedAt}); raw results: \`${resultFile}\`.

**Machine:** ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB RAM, ${m.os}; Node ${m.node}; ${m.postgres}; Redis ${m.redis}; autocannon ${m.autocannon}.
Postgres, Redis, the service and the load generator all share the same ${m.cores} cores.${m.postgresSettings ? `\nPostgreSQL settings: ${Object.entries(m.postgresSettings).map(([k, v]) => `\`${k}=${v}\``).join(', ')}.` : ''}

**Database connections:** ${connections(results)}

**Command:** \`npm run bench\` (from a clean clone: \`npm ci && npm run bench\`; PostgreSQL and Redis running as for \`npm start\`).
Each phase: ${results.config.warmupS} s warm-up, then ${results.config.durationS} s measured, ${results.config.connections} connections
(\`BENCH_DURATION\`, \`BENCH_WARMUP\`, \`BENCH_CONNECTIONS\`). The service is \`npm start\`'s \`node --max-semi-space-size=64 dist/apps/api/src/main.js\`
(API on the main thread, the worker side on a worker thread of the same process) on a fresh database \`rewards_bench_<stamp>\` with \`RATE_LIMIT_PER_MINUTE=1000000\`,
\`LOG_LEVEL=warn\`, its own \`QUEUE_PREFIX\` and \`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\`. Rewards are CHOICE ${CHOICE_CENTS / 100} USD
with a fresh \`Idempotency-Key\` each; the 20-merchant runs go round-robin over 20 funded merchants. The "half of peak"
phases offer half the measured peak rate evenly spaced (open loop; latency counted from the scheduled send time), not with
autocannon's rate option, which sends each connection's per-second quota in a burst. Webhook fan-out: ${results.phases.webhook_fanout?.endpoints ?? 16}
endpoints on one merchant, answered 200 at once by a local receiver, events from CHOICE creates on that merchant. ${webhookMethod(results)}
${repeatedRatios}
**Ceiling:** the ${results.sqlCapture.statements === 1 ? 'single statement' : `${results.sqlCapture.statements} statements`} that one \`POST /v1/rewards\` (CHOICE) sends to PostgreSQL, captured from the
\`pg\` driver inside the bench-started service (bench/agent.js, preloaded with \`-r\`; product code untouched; \`pg_stat_statements\`
is not in \`shared_preload_libraries\` of the shared server, which was not restarted), replayed with \`pg\` at the same
concurrency (${results.config.connections} clients, one per connection) with per-request values (ids, key, hashes, timestamps) made fresh
and the account swapped; ${serviceDuringReplay} "ratio" = HTTP figure ÷ ceiling (for reads and bulk items it is
only a scale reference).

## Results

| figure | value | p50 ms | p99 ms | errors | ceiling | ratio | target | note |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Ledger invariants (balances ≥ 0 and equal to the sums of their ledger rows) after every create phase and after ${repeats ? 'every' : 'the'} replay:
${results.invariants.every((i) => i.ok) ? 'all held' : 'VIOLATED, see the JSON'}. Rewards created = 2xx responses (plus at most one in-flight request per connection at the end) in every create phase:
${Object.values(results.phases).filter((p) => p.createdMatches2xx !== undefined).every((p) => p.createdMatches2xx) ? 'yes' : 'NO'}.

## Where the time goes

CPU during each measured phase (% of all ${m.cores} cores, from /proc), the 1/5/15-minute load average before it, and what the
bench database's backends were doing (pg_stat_activity sampled every 100 ms; average number of backends in that state),
and the database server's checkpoints begun and WAL written meanwhile (pg_stat_bgwriter, pg_current_wal_lsn: the whole server's,
so another database's work counts too; a checkpoint that starts inside a phase makes the next change to each page write a full
copy of it to the WAL, bench/ANALYSIS.md "Where a scheduled drain's WAL goes"):

| phase | load before | busy % | service % | postgres % | redis % | load generator % | other % | top Postgres states | checkpoints begun, timed / requested | WAL MB (the server's) |
|---|---|---|---|---|---|---|---|---|---|---|
${phaseRows.join('\n')}

### Profiles (separate passes, V8 CPU profiler via node:inspector — what \`--cpu-prof\` records — and per-statement timing in the driver)

${profiles.join('\n')}

### SQL of one reward creation (the ceiling's script)

${results.sqlCapture.sql.length <= 3
    ? results.sqlCapture.sql.map((s, i) => `${i + 1}.\n\n\`\`\`sql\n${s.replace(/\), ([a-z_]+ AS \()/g, '),\n$1').replace(/ (SELECT|FROM jsonb|FROM unnest|WHERE EXISTS)/g, '\n    $1').trim()}\n\`\`\``).join('\n\n')
    : results.sqlCapture.sql.map((s, i) => `${i + 1}. \`${s.slice(0, 220).replace(/\|/g, '\\|')}${s.length > 220 ? '…' : ''}\``).join('\n')}

${analysis}`;
}

module.exports = { buildFigures, writeResults, renderFrom, markdown };
