'use strict';
// The create figures that are judged as a ratio to the database's ceiling. The box is shared and its
// load swings by tens of percent within minutes, so a service figure and a ceiling measured minutes
// apart do not make an honest ratio. Here each service phase is followed at once by its ceiling
// phase, the pair is repeated REPEATS times, and the figures are the median of the paired ratios
// with their spread (lowest–highest).
const { MERCHANTS, REPEATS, wanted, log } = require('./config');
const { choiceBody } = require('./load');
const { spread, median, round } = require('./numbers');
const { createPhase } = require('./phases');
const { PgBouncer } = require('./pooler');
const { ceilingPhase } = require('./replay');

/**
 * Which merchants each run uses. Run 1 of the single-merchant phase uses merchants[0], the hot
 * merchant the read phases list later, as a one-run bench did; later runs use other merchants, so the
 * hot merchant's history (which the list reads count through) does not grow with REPEATS. The
 * replays never write to merchants[0] for the same reason.
 */
const RATIO_PHASES = [
  {
    key: 'create_choice_1_merchant',
    ceilingName: 'ceiling_1_merchant',
    service: (merchants, i) => [merchants[i % MERCHANTS]],
    ceiling: (merchants, i) => [merchants[MERCHANTS - 1 - (i % (MERCHANTS - 1))]],
  },
  {
    key: 'create_choice_20_merchants',
    ceilingName: 'ceiling_20_merchants',
    service: (merchants) => merchants.slice(0, MERCHANTS),
    ceiling: (merchants) => merchants.slice(1, MERCHANTS + 1),
  },
];

/**
 * Runs the pairs (service phase, then its ceiling) REPEATS times and files the medians. BENCH_ONLY
 * `ratio` runs just these pairs; `create` runs the service side (and the half-peak phases in run.js),
 * `ceiling` the replays.
 */
async function ratioPhases(ctx, merchants, replay) {
  const runs = Object.fromEntries(RATIO_PHASES.map((p) => [p.key, { service: [], ceiling: [] }]));
  const through = ctx.pooler ? 'pgbouncer' : 'direct';
  for (let i = 0; i < REPEATS; i++) {
    for (const p of RATIO_PHASES) {
      if (wanted('create') || wanted('ratio')) runs[p.key].service.push(await servicePhase(ctx, `${p.key}#${i + 1}`, p.service(merchants, i)));
      if (replay) {
        const accounts = p.ceiling(merchants, i).map((m) => m.accountId);
        runs[p.key].ceiling.push(await ceilingPhase(ctx, `${p.ceilingName}#${i + 1}`, replay.plan, replay.valuesFor, accounts));
      }
    }
  }
  for (const p of RATIO_PHASES) {
    const { service, ceiling } = runs[p.key];
    const names = (name) => Array.from({ length: REPEATS }, (_, i) => `${name}#${i + 1}`);
    if (service.length) ctx.results.phases[p.key] = { ...summariseRuns(service, names(p.key)), through };
    if (ceiling.length) ctx.results.ceiling[p.key] = { ...summariseRuns(ceiling, names(p.ceilingName)), connections: ceiling[0].connections, statementsPerCreate: ceiling[0].statementsPerCreate, through: 'direct' };
    if (service.length && ceiling.length) {
      const pairs = service.map((s, i) => ({ service: s.rps, ceiling: ceiling[i].rps, ratio: ceiling[i].rps ? round(s.rps / ceiling[i].rps, 2) : null }));
      const ratio = spread(pairs.map((x) => x.ratio), 2);
      // The readable part first (service req/s, ceiling, ratio: medians of the runs; how each side reached
      // PostgreSQL), then the fields buildFigures reads (median, min, max, n, runs), as in earlier results files.
      ctx.results.ratios[p.key] = {
        serviceRps: ctx.results.phases[p.key].rps,
        ceilingRps: ctx.results.ceiling[p.key].rps,
        ratio: ratio.median,
        ratioMin: ratio.min,
        ratioMax: ratio.max,
        pooler: ctx.pooler ? 'pgbouncer' : null,
        serviceThrough: through,
        ceilingThrough: 'direct',
        ...ratio,
        runs: pairs,
      };
      const r = ctx.results.ratios[p.key];
      log(`${p.key}: ${r.serviceRps} req/s (${through}) ÷ ceiling ${r.ceilingRps} (direct) = ${r.ratio} (${r.ratioMin}–${r.ratioMax}, ${r.n} runs)`);
    }
  }
}

/**
 * One run of a service phase; behind the pooler, with what went through it during the run, warm-up included (its
 * transactions and statements, the evidence that the service's traffic did, and how long the service's
 * clients waited for a server session) filed with the phase.
 */
async function servicePhase(ctx, name, merchants) {
  const before = ctx.pooler ? await ctx.pooler.snapshot() : null;
  const r = await createPhase(ctx, name, merchants, choiceBody);
  r.through = ctx.pooler ? 'pgbouncer' : 'direct';
  if (ctx.pooler) {
    r.pooler = PgBouncer.difference(before, await ctx.pooler.snapshot());
    log(`${name}: through pgbouncer ${JSON.stringify(r.pooler)}`);
  }
  return r;
}

/** Repeated runs of one phase as one figure: medians of rate and latency, errors summed, rate spread. */
function summariseRuns(results, names) {
  const rps = spread(results.map((r) => r.rps));
  return {
    note: `median of ${results.length} interleaved runs (${names.join(', ')})`,
    runs: names,
    rps: rps.median,
    rpsMin: rps.min,
    rpsMax: rps.max,
    p50: round(median(results.map((r) => r.p50))),
    p99: round(median(results.map((r) => r.p99))),
    ok: results.reduce((a, r) => a + r.ok, 0),
    errors: results.reduce((a, r) => a + r.errors, 0),
  };
}

module.exports = { ratioPhases };
