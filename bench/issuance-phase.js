'use strict';
// Card issuance against a supplier that takes 500 ms a call: the service is restarted (same
// database) with SANDBOX_SUPPLIER_LATENCY_MS=500 and ISSUANCE_CONCURRENCY=64, one worker (npm start's
// worker thread) and the default database pool of 20. Three phases: throughput on a backlog, FIXED
// create → ISSUED at half of that peak, and five CHOICE picks of one reward in a row.
const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { DURATION, log, sleep } = require('./config');
const { invariants } = require('./database');
const { paced } = require('./load');
const { measured } = require('./measure');
const { round, stats, highest, appendAll } = require('./numbers');
const { api, Service } = require('./service');

const LATENCY_MS = 500;
const CONCURRENCY = 64;
const ISSUANCE_ENV = { SANDBOX_SUPPLIER_LATENCY_MS: String(LATENCY_MS), SANDBOX_SUPPLIER_JITTER_MS: '0', ISSUANCE_CONCURRENCY: String(CONCURRENCY) };
/** 90 % of what 64 concurrent calls of 500 ms allow. */
const TARGET_PER_S = round(0.9 * (CONCURRENCY / (LATENCY_MS / 1000)), 0);

const fixedItem = (item, i, tag) => ({ type: 'FIXED', utid: item.utid, valueCents: item.valueCents, recipient: { email: `${tag}${i}@example.test`, firstName: 'Ada' } });

async function waitIssued(db, rewardIds, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  let pending = Infinity;
  while (Date.now() < deadline) {
    pending = (await db.query(`SELECT count(*)::int AS n FROM reward_cards WHERE reward_id = ANY($1) AND status = 'PENDING'`, [rewardIds])).rows[0].n;
    if (pending === 0) break;
    await sleep(250);
  }
  return pending;
}

async function issuedRows(db, rewardIds) {
  const { rows } = await db.query(
    `SELECT c.status, c.issued_at, extract(epoch FROM (c.issued_at - r.created_at)) * 1000 AS ms
       FROM reward_cards c JOIN rewards r ON r.id = c.reward_id WHERE r.id = ANY($1)`,
    [rewardIds],
  );
  return rows;
}

/**
 * Throughput: a backlog of FIXED cards over many merchants (bulk sends of 100, made faster than they
 * can be issued), then the rate at which the one worker issues them, over the middle 80 % of the
 * cards (leaving out the ramp up and the tail). Each merchant's cards settle through its wallet row,
 * so the backlog is spread as real traffic would be.
 */
async function throughputPhase(ctx, merchants, item) {
  const total = Math.ceil((TARGET_PER_S * DURATION * 1.5) / 100) * 100;
  const ids = [];
  return measured(ctx, 'issuance_throughput', async () => {
    const started = performance.now();
    let next = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while (next < total / 100) {
          const k = next++;
          const m = merchants[k % merchants.length];
          const res = await api(m.key, 'POST', '/v1/rewards/bulk', { rewards: Array.from({ length: 100 }, (_, i) => fixedItem(item, i, `it${k}-`)) }, { 'idempotency-key': crypto.randomUUID() });
          if (res.status !== 207 || res.body.sent !== 100) throw new Error(`bulk failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
          appendAll(ids, res.body.results.map((r) => r.rewardId).filter(Boolean));
        }
      }),
    );
    const createdS = (performance.now() - started) / 1000;
    if (ids.length !== total) throw new Error(`bulk results carried ${ids.length} reward ids, expected ${total}`);
    const stillPending = await waitIssued(ctx.db, ids);
    const rows = await issuedRows(ctx.db, ids);
    const times = rows.filter((r) => r.status === 'ISSUED').map((r) => r.issued_at.getTime()).sort((a, b) => a - b);
    const lo = Math.floor(times.length * 0.1);
    const hi = Math.ceil(times.length * 0.9) - 1;
    const perS = hi > lo ? round((hi - lo) / ((times[hi] - times[lo]) / 1000), 1) : null;
    return {
      cards: ids.length,
      merchants: merchants.length,
      issued: times.length,
      notIssued: rows.length - times.length,
      stillPending,
      createdPerS: round(ids.length / createdS, 0),
      issuedPerS: perS,
      targetPerS: TARGET_PER_S,
      rps: perS,
    };
  });
}

/** FIXED create → ISSUED at half of the measured peak issuance rate, creates evenly spaced. */
async function fixedLatencyPhase(ctx, merchants, item, peakPerS) {
  const rate = Math.max(1, Math.round(peakPerS / 2));
  const before = new Date();
  const r = await measured(ctx, 'issuance_fixed_half_peak', async () => {
    const load = await paced(merchants, (i) => JSON.stringify(fixedItem(item, i, 'fh')), rate, DURATION);
    const { rows: created } = await ctx.db.query(`SELECT id FROM rewards WHERE account_id = ANY($1) AND created_at >= $2 AND type = 'FIXED'`, [merchants.map((m) => m.accountId), before]);
    const ids = created.map((x) => x.id);
    const stillPending = await waitIssued(ctx.db, ids);
    const rows = await issuedRows(ctx.db, ids);
    const issued = rows.filter((x) => x.status === 'ISSUED');
    return { ...load, offeredRate: rate, rewards: ids.length, issued: issued.length, notIssued: rows.length - issued.length, stillPending, issueMs: stats(issued.map((x) => Number(x.ms))) };
  });
  return r;
}

/** Five picks of one CHOICE reward in a row, each card going to the 500 ms supplier before the next pick. */
async function choicePicksPhase(ctx, merchant, item) {
  const REWARDS = 10;
  return measured(ctx, 'issuance_choice_5_picks', async () => {
    const picks = [];
    const worstPerReward = [];
    for (let n = 0; n < REWARDS; n++) {
      const sent = await api(merchant.key, 'POST', '/v1/rewards', { type: 'CHOICE', valueCents: item.valueCents * 5, recipient: { email: `cp${n}@example.test`, firstName: 'Ada' } });
      if (sent.status !== 201) throw new Error(`CHOICE send failed: ${sent.status}`);
      const url = `${sent.body.redemptionUrl}/api/cards`;
      let worst = 0;
      for (let k = 0; k < 5; k++) {
        const t = performance.now();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ utid: item.utid, amountCents: item.valueCents }) });
        await res.text();
        const ms = performance.now() - t;
        if (res.status !== 201) throw new Error(`pick ${k + 1} of reward ${n} answered ${res.status}`);
        picks.push(ms);
        worst = Math.max(worst, ms);
      }
      worstPerReward.push(worst);
    }
    const s = stats(picks);
    return { rewards: REWARDS, picks: picks.length, pickMs: s, p50: round(s.p50, 0), p99: round(s.p99, 0), maxMs: round(highest(picks), 0), over100: picks.filter((ms) => ms >= 100).length };
  });
}

/** The three phases on a service restarted with the issuance settings; the service is left running with them. */
async function issuancePhases(ctx, merchants, item) {
  await ctx.service.stop();
  ctx.service = await Service.start(ISSUANCE_ENV);
  const [pickMerchant, ...rest] = merchants;
  const tp = await throughputPhase(ctx, rest, item);
  await fixedLatencyPhase(ctx, rest, item, tp.issuedPerS ?? TARGET_PER_S);
  await choicePicksPhase(ctx, pickMerchant, item);
  const inv = await invariants(ctx.db, 'issuance phases', merchants.map((m) => m.accountId));
  ctx.results.invariants.push(inv);
  log(`issuance phases done (supplier ${LATENCY_MS} ms, concurrency ${CONCURRENCY})`);
}

module.exports = { issuancePhases, ISSUANCE_ENV, TARGET_PER_S };
