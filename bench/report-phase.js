'use strict';
// A CSV report of a large account (docs/reports.md): one merchant seeded in SQL with
// BENCH_REPORT_REWARDS rewards (default 1,000,000, the scale phase's seed), a rewards report of all
// of them built by the service's worker while a client keeps sending to that same merchant at a
// steady rate (the target is about that merchant's own sends). Reports the build time, the service process's RSS during the build (the worker runs on
// a thread of that process under `npm start`, so its memory is the process's), and the send latency
// without a report running and while one is built.
const fs = require('node:fs');
const { DURATION, log, sleep } = require('./config');
const { cannon, summarise, paced, choiceBody, createRequests } = require('./load');
const { measured } = require('./measure');
const { round, stats } = require('./numbers');
const { api } = require('./service');
const { merchant, seedRewards } = require('./scale-phase');

const ROWS = Number(process.env.BENCH_REPORT_REWARDS || 1_000_000);
const SLICE_S = 2;
const MAX_BUILD_S = 1_800;
const RSS_EVERY_MS = 250;

/** The service process's resident set, in MB (Linux /proc). */
function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024, 1);
}

/** Bytes of the report's CSV, read as a stream (the bench holds none of it). */
async function downloadedBytes(key, id) {
  const res = await fetch(`${require('./config').BASE}/v1/reports/${id}/download`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`report: download answered ${res.status}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  return { bytes, lines };
}

/**
 * Rows the read replica has handed out for the bench's database (pg_stat_database on the replica), with
 * BENCH_READ_PG: the evidence that a report was read there. Null without a replica.
 */
async function replicaRowsRead() {
  if (!process.env.BENCH_READ_PG) return null;
  const { Client } = require('pg');
  const client = new Client({ connectionString: `${process.env.BENCH_READ_PG.replace(/\/$/, '')}/postgres` });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT (tup_returned + tup_fetched)::bigint AS n FROM pg_stat_database WHERE datname = $1', [require('./config').DB_NAME]);
    return rows.length ? Number(rows[0].n) : 0;
  } finally {
    await client.end();
  }
}

async function reportPhase(ctx) {
  const { db, results, service } = ctx;
  // The merchant whose report is built is also the one that sends: its wallet row and its rewards are what a build could slow.
  const big = await merchant('Bench report big');
  for (let t = 0; t < 2; t++) {
    const res = await api(big.key, 'POST', '/v1/topups', { amountCents: 100_000_000 });
    if (res.status !== 201) throw new Error(`top-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await seedRewards(db, big.accountId, 'rpt', ROWS);
  await db.query('VACUUM ANALYZE rewards, reward_cards');

  // The send rate: half of the measured single-merchant peak, or of a short peak taken here.
  let peak = results.phases.create_choice_1_merchant?.rps;
  if (!peak) peak = summarise(await cannon({ duration: 3, requests: createRequests([big], choiceBody) })).rps;
  const rate = Math.max(1, Math.round(peak / 2));

  await measured(ctx, 'report_rewards', async () => {
    log(`report: sends at ${rate}/s for ${DURATION} s without a report`);
    // The process's RSS under the same sends without a report: the baseline the build's growth is measured from.
    const rssAtStart = rssMb(service.pid);
    let rssBefore = rssAtStart;
    let sendingAlone = true;
    const baseline = (async () => {
      while (sendingAlone) {
        rssBefore = Math.max(rssBefore, rssMb(service.pid));
        await sleep(RSS_EVERY_MS);
      }
    })();
    const without = (await paced([big], choiceBody, rate, DURATION, { samples: true })).samples;
    sendingAlone = false;
    await baseline;

    const replicaRowsBefore = await replicaRowsRead();
    const rewardsOf = async () => Number((await db.query('SELECT count(*) AS n FROM rewards WHERE account_id = $1', [big.accountId])).rows[0].n);
    const rewardsAtRequest = await rewardsOf();
    const requested = await api(big.key, 'POST', '/v1/reports', { type: 'rewards', filters: {} });
    if (requested.status !== 202) throw new Error(`report: request answered ${requested.status} ${JSON.stringify(requested.body)}`);
    const id = requested.body.report.id;
    const startedAt = Date.now();
    log(`report: ${id} requested for ${rewardsAtRequest} rewards; sending ${rate}/s to the same merchant meanwhile`);
    let report = null;
    let doneAt = Infinity;
    let rssMax = rssBefore;
    const rssSamples = [];
    const watcher = (async () => {
      while (!report && Date.now() - startedAt < MAX_BUILD_S * 1000) {
        await sleep(RSS_EVERY_MS);
        const rss = rssMb(service.pid);
        rssSamples.push(rss);
        rssMax = Math.max(rssMax, rss);
        const res = await api(big.key, 'GET', `/v1/reports/${id}`);
        if (['COMPLETED', 'FAILED'].includes(res.body.report.status)) {
          report = res.body.report;
          doneAt = Date.now();
        }
      }
    })();
    const sent = [];
    while (!report && Date.now() - startedAt < MAX_BUILD_S * 1000) {
      // A loop, not push(...): a spread of many samples into a call can overflow the stack.
      for (const sample of (await paced([big], choiceBody, rate, SLICE_S, { samples: true })).samples) sent.push(sample);
    }
    await watcher;
    // The sends made while the report was being built (the last slice may run on past its end).
    const during = sent.filter(([at]) => at >= startedAt && at <= doneAt);
    if (!report || report.status !== 'COMPLETED') throw new Error(`report: ${id} did not complete in ${MAX_BUILD_S} s (${JSON.stringify(report)})`);
    // The seeded rows and the sends before the request, and perhaps a few sent before its first batch was read.
    const rewardsAtEnd = await rewardsOf();
    if (report.rowCount < rewardsAtRequest || report.rowCount > rewardsAtEnd) throw new Error(`report: ${report.rowCount} rows, ${rewardsAtRequest} rewards at the request and ${rewardsAtEnd} at the end`);
    const buildS = round((Date.parse(report.completedAt) - Date.parse(requested.body.report.createdAt)) / 1000, 2);
    const csv = await downloadedBytes(big.key, id);
    const sendStats = (xs) => ({ ...stats(xs.map(([, ms]) => ms)), errors: xs.filter(([, , ok]) => !ok).length });
    const replicaRowsAfter = await replicaRowsRead();
    const out = {
      // With BENCH_READ_PG: rows the replica handed out while the report was built (the report's reads went there).
      ...(replicaRowsBefore === null ? {} : { replicaRowsRead: replicaRowsAfter - replicaRowsBefore }),
      rows: report.rowCount,
      buildS,
      rowsPerS: round(report.rowCount / buildS, 0),
      csvMb: round(csv.bytes / 1024 / 1024, 1),
      csvLines: csv.lines,
      rssAtStartMb: rssAtStart,
      // The highest RSS while sending without a report, and while the report was built.
      rssBeforeMb: rssBefore,
      rssMaxMb: rssMax,
      rssGrowthMb: round(rssMax - rssBefore, 1),
      rssSamples: rssSamples.length,
      sendRate: rate,
      sendsWithout: sendStats(without),
      sendsDuring: sendStats(during),
      p50: stats(during.map(([, ms]) => ms)).p50,
      p99: stats(during.map(([, ms]) => ms)).p99,
    };
    if (out.replicaRowsRead !== undefined) log(`report: the read replica handed out ${out.replicaRowsRead} rows of the bench's database meanwhile`);
    log(`report: ${out.rows} rows in ${buildS} s (${out.rowsPerS}/s), ${out.csvMb} MB; RSS max ${rssBefore} MB sending alone → max ${rssMax} MB while building; send p99 ${out.sendsWithout.p99} ms without, ${out.sendsDuring.p99} ms during`);
    return out;
  });
}

module.exports = { reportPhase };
