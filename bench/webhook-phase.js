'use strict';
// Webhook fan-out: a local receiver answers 200 at once on WEBHOOK_ENDPOINTS endpoints of one merchant
// while rewards are created on it (each creation makes two events: reward.created and reward.sent).
// After a warm-up (connections to the receiver opened, the delivery path compiled), three runs:
// - at full rate (closed loop), the peak create rate with the endpoints, which shows how many
//   deliveries/s the service sustains and what saturates: CPU per thread of the service, and the
//   statements its database sessions spend their time in;
// - at half of that peak (open loop): the target run, where the lag from event commit to receipt
//   must stay low and flat (first third of the run against the last third);
// - at half of the peak create rate of a merchant without endpoints (open loop), a stricter load
//   reported beside it: each create then brings more deliveries than the box sustains alongside.
const fs = require('node:fs');
const http = require('node:http');
const { DURATION, WARMUP, WEBHOOK_ENDPOINTS, WEBHOOK_RATE, log, sleep } = require('./config');
const { cannon, paced, summarise, choiceBody, createRequests } = require('./load');
const { measured } = require('./measure');
const { round, stats } = require('./numbers');
const { api } = require('./service');
const { statementSampler } = require('./database');
const { threadSnapshot, threadDiff } = require('./machine');

/** The half-rate run is longer than the others: a lag that grows needs time to show. */
const HALF_RATE_S = Math.max(DURATION, 15);

function receiver() {
  let receipts = [];
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
  return {
    server,
    take() {
      const taken = receipts;
      receipts = [];
      return taken;
    },
    get count() {
      return receipts.length;
    },
  };
}

/** Lag figures of receipts: all, and by thirds of the load window (by when the event was committed). */
function lagFigures(receipts, from, to) {
  const lag = (xs) => stats(xs.map((r) => r.at - r.createdAt).filter((x) => !Number.isNaN(x)));
  const third = (to - from) / 3;
  return {
    lagMs: lag(receipts),
    lagFirstThirdMs: lag(receipts.filter((r) => r.createdAt < from + third)),
    lagLastThirdMs: lag(receipts.filter((r) => r.createdAt >= to - third)),
  };
}

/**
 * CPU time of the service's webhook bookkeeping sessions (application_name rewards-webhooks: relay,
 * claims, records, lease renewals), from /proc: `sample()` notes each session's jiffies (sessions
 * come and go with the pool), `ms()` the total since the first sample. A cost per delivery that the
 * load of the rest of the machine hardly moves, unlike rates and lags.
 */
function webhookSessionsCpu(db) {
  const first = new Map();
  const last = new Map();
  const jiffies = (pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return null;
    }
  };
  let started = false;
  return {
    async sample() {
      const { rows } = await db.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'rewards-webhooks'`,
      );
      for (const { pid } of rows) {
        const j = jiffies(pid);
        if (j === null) continue;
        // A session that appears after the first sample started within the run: all its time counts.
        if (!first.has(pid)) first.set(pid, started ? 0 : j);
        last.set(pid, j);
      }
      started = true;
    },
    ms() {
      let total = 0;
      for (const [pid, j] of last) total += j - first.get(pid);
      return total * 10; // 100 jiffies per second
    },
  };
}

/**
 * Waits (up to 3 minutes) until every event of the merchant since `since` is dispatched and the receiver
 * has had one delivery per endpoint of each; returns how many deliveries that is.
 */
async function allDelivered(db, merchant, since, rx, onPoll = async () => undefined) {
  const deadline = Date.now() + 180_000;
  let expected = 0;
  while (Date.now() < deadline) {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM events WHERE account_id = $1 AND created_at >= $2)::int AS events,
              (SELECT count(*) FROM events WHERE account_id = $1 AND dispatched_at IS NULL)::int AS undispatched`,
      [merchant.accountId, since],
    );
    expected = rows[0].events * WEBHOOK_ENDPOINTS;
    await onPoll();
    if (rows[0].undispatched === 0 && rx.count >= expected) break;
    await sleep(250);
  }
  return expected;
}

/** One measured run: `load()` creates rewards; then waits for every delivery and reports. */
async function fanoutRun(ctx, name, merchant, rx, load) {
  const { db } = ctx;
  return measured(ctx, name, async () => {
    rx.take();
    const statements = statementSampler();
    const threads0 = threadSnapshot(ctx.service.pid);
    const sessions = webhookSessionsCpu(db);
    await sessions.sample();
    const since = new Date();
    const from = Date.now();
    const creates = await load();
    const to = Date.now();
    const threads = threadDiff(threads0, threadSnapshot(ctx.service.pid), ctx.service.pid);
    const topStatements = await statements.stop();
    const receivedDuringLoad = rx.count;
    const expected = await allDelivered(db, merchant, since, rx, () => sessions.sample());
    await sessions.sample();
    // Load and drain together: every delivery of the run is paid for in this window.
    const wholeRun = threadDiff(threads0, threadSnapshot(ctx.service.pid), ctx.service.pid);
    const wholeRunS = (Date.now() - from) / 1000;
    const receipts = rx.take();
    // A loop, not Math.min(...): a run's receipts can outnumber what a call's arguments may hold.
    let first = Infinity;
    let last = -Infinity;
    for (const r of receipts) {
      if (r.at < first) first = r.at;
      if (r.at > last) last = r.at;
    }
    return {
      endpoints: WEBHOOK_ENDPOINTS,
      creates,
      deliveries: receipts.length,
      expectedDeliveries: expected,
      duplicates: receipts.length - new Set(receipts.map((r) => `${r.endpoint} ${r.id}`)).size,
      // Deliveries/s offered by the events against deliveries/s received while the load ran: the second
      // falling short of the first is the backlog growing.
      offeredDeliveriesPerS: round(expected / ((to - from) / 1000), 0),
      deliveriesPerSDuringLoad: round(receivedDuringLoad / ((to - from) / 1000), 0),
      deliveriesPerS: round(receipts.length / ((last - first) / 1000), 0),
      ...lagFigures(receipts, from, to),
      drainAfterLoadS: round((last - to) / 1000, 2),
      serviceThreads: threads,
      // Costs per delivery over the whole run (load and drain). The worker thread also carries the creates' own
      // background work (mail), the same in an A/B at one create rate. (Not WAL bytes: the cluster's WAL position
      // moves with every other database on the server.)
      costPerDelivery: {
        workerThreadCpuMs: round((wholeRun.busiestOtherThreadPctOfCore * 10 * wholeRunS) / Math.max(1, receipts.length), 3),
        webhookSessionsCpuMs: round(sessions.ms() / Math.max(1, receipts.length), 3),
      },
      topStatements,
    };
  });
}

async function webhookPhase(ctx, merchant) {
  // The peak create rate of this merchant before it has endpoints (unless the create phases measured it).
  let createPeak = ctx.results.phases.create_choice_1_merchant?.rps;
  if (!createPeak && !WEBHOOK_RATE) createPeak = summarise(await cannon({ duration: 3, requests: createRequests([merchant], choiceBody) })).rps;

  const rx = receiver();
  await new Promise((r) => rx.server.listen(0, '127.0.0.1', r));
  const port = rx.server.address().port;
  for (let i = 0; i < WEBHOOK_ENDPOINTS; i++) {
    const res = await api(merchant.key, 'POST', '/v1/webhook-endpoints', { url: `http://127.0.0.1:${port}/hook/${i}`, events: [] });
    if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(res.body)}`);
  }
  // Warm-up, as every other phase has: the first deliveries open the receiver's connections and compile the path.
  const warmSince = new Date();
  await cannon({ duration: WARMUP, requests: createRequests([merchant], choiceBody) });
  const warmExpected = await allDelivered(ctx.db, merchant, warmSince, rx);
  if (rx.count < warmExpected) log(`webhooks: warm-up left ${warmExpected - rx.count} of ${warmExpected} deliveries undelivered after 3 minutes`);
  rx.take();

  const full = await fanoutRun(ctx, 'webhook_fanout', merchant, rx, async () =>
    summarise(await cannon({ duration: DURATION, requests: createRequests([merchant], choiceBody) })),
  );
  const half = WEBHOOK_RATE || Math.max(1, Math.round(full.creates.rps / 2));
  log(`webhooks: ${WEBHOOK_ENDPOINTS} endpoints; ${WEBHOOK_RATE ? 'fixed rate' : 'half of the peak with endpoints'} = ${half} creates/s for ${HALF_RATE_S} s`);
  const halfRun = await fanoutRun(ctx, 'webhook_fanout_half_peak', merchant, rx, () => paced([merchant], choiceBody, half, HALF_RATE_S));
  halfRun.peakCreatesPerS = WEBHOOK_RATE ? null : full.creates.rps;
  if (!WEBHOOK_RATE) {
    const strict = Math.max(1, Math.round(createPeak / 2));
    log(`webhooks: half of the peak without endpoints = ${strict} creates/s for ${HALF_RATE_S} s`);
    const strictRun = await fanoutRun(ctx, 'webhook_fanout_half_create_peak', merchant, rx, () => paced([merchant], choiceBody, strict, HALF_RATE_S));
    strictRun.peakCreatesPerS = createPeak;
  }
  rx.server.close();
}

module.exports = { webhookPhase };
