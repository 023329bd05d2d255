'use strict';
// The HTTP phases: reward creation (closed loop, or paced at a fixed rate), FIXED end to end until the
// card is issued, bulk sends, reads, and the profiler passes. Each warms up, then runs measured.
const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { DURATION, WARMUP, CONNECTIONS, CHOICE_CENTS, BULK_COUNT, REPEATS, log, sleep } = require('./config');
const { drain, rewardCount, invariants } = require('./database');
const { cannon, summarise, paced, choiceBody, fundedChoiceBody, createRequests } = require('./load');
const { measured } = require('./measure');
const { round, stats, median, lowest, highest } = require('./numbers');
const { api } = require('./service');

async function createPhase(ctx, name, merchants, body, extra = {}) {
  const accountIds = merchants.map((m) => m.accountId);
  // A fixed rate is offered evenly spaced (paced); without one, autocannon keeps every connection busy.
  const load = (duration) => (extra.overallRate ? paced(merchants, body, extra.overallRate, duration) : cannon({ duration, requests: createRequests(merchants, body) }).then((res) => summarise(res)));
  await load(WARMUP);
  await sleep(1000); // the warm-up's last requests land before the count
  const before = await rewardCount(ctx.db, accountIds);
  const r = await measured(ctx, name, () => load(DURATION));
  await sleep(1000);
  const created = (await rewardCount(ctx.db, accountIds)) - before;
  r.rewardsCreated = created;
  // requests still in flight when autocannon stops counting complete on the server: at most one per connection
  r.createdMatches2xx = created >= r.ok && created - r.ok <= CONNECTIONS;
  r.invariants = await invariants(ctx.db, name, accountIds);
  ctx.results.invariants.push(r.invariants);
  if (extra.overallRate) r.offeredRate = extra.overallRate;
  return r;
}

/**
 * A CHOICE send converted from another wallet (EUR reward, fundingCurrency USD: docs/currencies.md)
 * against the same-currency send, on the same 20 merchants, in pairs run back to back (BENCH_REPEATS),
 * so the machine's load falls on both alike. The figure is the cost ratio, same-currency req/s ÷
 * funded req/s, median of the pairs.
 */
async function fundedPhases(ctx, merchants) {
  const runs = [];
  for (let n = 1; n <= REPEATS; n++) {
    const same = await createPhase(ctx, `create_choice_20_merchants_same_currency#${n}`, merchants, choiceBody);
    const funded = await createPhase(ctx, `create_choice_20_merchants_funded#${n}`, merchants, fundedChoiceBody);
    runs.push({ sameRps: same.rps, fundedRps: funded.rps, costRatio: round(same.rps / funded.rps, 2) });
  }
  const figure = { runs, costRatio: median(runs.map((r) => r.costRatio)), target: 1.2 };
  ctx.results.phases.funded_vs_same_currency = figure;
  log(`fx: funded ÷ same-currency cost ${figure.costRatio} (target ≤ 1.2): ${JSON.stringify(runs)}`);
  return figure;
}

async function fixedPhase(ctx, merchants, item) {
  const { db } = ctx;
  const body = (i) => JSON.stringify({ type: 'FIXED', utid: item.utid, valueCents: item.valueCents, recipient: { email: `f${i}@example.test`, firstName: 'Ada' } });
  await cannon({ duration: WARMUP, requests: createRequests(merchants, body) });
  const ids = [];
  const r = await measured(ctx, 'create_fixed_end_to_end', async () => {
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
    const first = lowest(rows.map((x) => x.created_at.getTime()));
    const last = highest(issued.map((x) => x.issued_at.getTime()));
    return {
      ...res,
      issued: issued.length,
      notIssued: rows.length - issued.length,
      stillPending: pending,
      issueMs: stats(issued.map((x) => Number(x.ms))),
      issuedPerS: round(issued.length / ((last - first) / 1000), 1),
    };
  });
  r.invariants = await invariants(db, 'create_fixed_end_to_end', merchants.map((m) => m.accountId));
  ctx.results.invariants.push(r.invariants);
}

async function bulkPhase(ctx, merchant) {
  const bulk = (k) => ({ rewards: Array.from({ length: 500 }, (_, i) => ({ type: 'CHOICE', valueCents: CHOICE_CENTS, recipient: { email: `b${k}-${i}@example.test`, firstName: 'Ada' } })) });
  const send = async (k) => {
    const t = performance.now();
    const res = await api(merchant.key, 'POST', '/v1/rewards/bulk', bulk(k), { 'idempotency-key': crypto.randomUUID() });
    const ms = performance.now() - t;
    if (res.status !== 207 || res.body.sent !== 500) throw new Error(`bulk failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return ms;
  };
  await send(-1); // warm-up
  const r = await measured(ctx, 'create_bulk_500', async () => {
    const times = [];
    for (let k = 0; k < BULK_COUNT; k++) {
      times.push(await send(k));
      await drain(ctx.db); // each bulk on a quiet service: its mails and events do not tax the next
    }
    return { wallMs: stats(times), bulks: times.length, itemsPerS: round((500 * times.length) / (times.reduce((a, b) => a + b, 0) / 1000), 0) };
  });
  r.invariants = await invariants(ctx.db, 'create_bulk_500', [merchant.accountId]);
  ctx.results.invariants.push(r.invariants);
}

async function readPhase(ctx, name, key, pathFn, headers = {}, expected = 2) {
  const requests = [{ method: 'GET', setupRequest: (req) => ({ ...req, path: pathFn(), headers: { authorization: `Bearer ${key}`, ...headers } }) }];
  await cannon({ duration: WARMUP, requests });
  return measured(ctx, name, async () => summarise(await cannon({ duration: DURATION, requests }), expected));
}

/** A separate short pass with the V8 CPU profiler and per-statement timing on (not used for the figures). */
async function profilePhase(ctx, name, merchants) {
  const { service } = ctx;
  const dur = Math.max(3, Math.round(DURATION / 2));
  await drain(ctx.db);
  await service.agent('prof-start');
  await service.agent('stats-start');
  const res = summarise(await cannon({ duration: dur, requests: createRequests(merchants, choiceBody) }));
  const { statements } = await service.agent('stats-stop');
  const { summary } = await service.agent('prof-stop');
  const totalMs = statements.reduce((a, s) => a + s.totalMs, 0);
  ctx.results.phases[name] = {
    note: 'separate pass with the V8 CPU profiler and per-statement timing on; not used for the figures',
    rps: res.rps,
    p50: res.p50,
    p99: res.p99,
    cpuProfile: summary,
    statements: statements.slice(0, 15).map((s) => ({ text: s.text.slice(0, 160), calls: s.calls, meanMs: round(s.meanMs, 2), pctOfSqlTime: round((100 * s.totalMs) / totalMs, 1) })),
  };
  log(`${name}: rps ${res.rps}; top areas ${summary.areas.slice(0, 5).map((a) => `${a.name} ${a.pct}%`).join(', ')}`);
}

module.exports = { createPhase, fundedPhases, fixedPhase, bulkPhase, readPhase, profilePhase };
