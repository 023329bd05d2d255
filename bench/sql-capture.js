'use strict';
// Captures the SQL that one `POST /v1/rewards` (CHOICE) sends to PostgreSQL, from the `pg` driver
// inside the service (bench/agent.js records it; this side asks for it and cuts it to the creation's
// transaction). Two identical captures tell the per-request values (ids, hashes, times) from the fixed ones.
const crypto = require('node:crypto');
const { log, sleep } = require('./config');
const { api } = require('./service');
const { choiceBody } = require('./load');

async function captureOnce(service, key) {
  await sleep(400);
  await service.agent('capture-start');
  const res = await api(key, 'POST', '/v1/rewards', JSON.parse(choiceBody(0)), { 'idempotency-key': crypto.randomUUID() });
  await sleep(50);
  const { queries } = await service.agent('capture-stop');
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

/**
 * The replay plan: the statements of the shortest of 6 captures, with which values varied between
 * two identical ones (those are made fresh for every replay, see bench/replay-values.js).
 * Returns { plan, summary }: the summary (statement texts) goes into the results.
 */
async function captureCreatePlan(service, merchant) {
  log('capturing the SQL of one reward creation');
  const tries = [];
  for (let i = 0; i < 6; i++) tries.push(await captureOnce(service, merchant.key));
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
  const summary = {
    method: 'pg.Client#query wrapped by bench/agent.js, loaded only into the bench-started service (-r); shortest of 6 captures, cut at the COMMIT',
    statements: statements.length,
    clients: [...new Set(a.queries.map((q) => q.client))].length,
    sql: statements.map((s) => s.text.replace(/\s+/g, ' ').trim()),
  };
  log(`captured ${statements.length} statements`);
  return { plan: { statements, accountId: merchant.accountId }, summary };
}

/** The strings inside two JSON texts that differ (compared by position), e.g. the ids in a row set. */
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
      if (p !== q) out.push(p);
    } else if (p && typeof p === 'object') {
      for (const k of Object.keys(p)) walk(p[k], q && typeof q === 'object' ? q[k] : undefined);
    }
  };
  walk(x, y);
  return out;
}

module.exports = { captureCreatePlan, jsonDifferences };
