'use strict';
// Replay pacing (BENCH_ONLY=replay): live-delivery lag to other endpoints while a large replay runs.
// One merchant holds BENCH_REPLAY_EVENTS (default 100,000) past events, written straight into the outbox
// as already fanned out, and one endpoint; another merchant has an endpoint of its own and sends rewards
// at BENCH_REPLAY_LIVE_RATE creates/s (default 20). Two measured runs of the same live load:
// - `replay_live_baseline`: no replay, the live endpoint's lag (event commit to receipt);
// - `replay_live_during_replay`: the first merchant replays all its events (POST .../replay) as the load
//   starts; the live lag again, the replay's progress (deliveries/s to its endpoint), and how long the
//   whole replay took to arrive (waited for up to BENCH_REPLAY_WAIT_S, default 600).
// The replay is paced by the worker (docs/webhooks.md, Replay), so the two lags should be alike.
const http = require('node:http');
const { DURATION, log, sleep } = require('./config');
const { paced, choiceBody } = require('./load');
const { measured } = require('./measure');
const { round, stats } = require('./numbers');
const { api } = require('./service');

const env = process.env;
const REPLAY_EVENTS = Number(env.BENCH_REPLAY_EVENTS || 100_000);
const LIVE_RATE = Number(env.BENCH_REPLAY_LIVE_RATE || 20);
const WAIT_S = Number(env.BENCH_REPLAY_WAIT_S || 600);
/** The live runs last at least this long: the replay must be under way for most of one. */
const LIVE_S = Math.max(DURATION, 15);

function receiver() {
  const byPath = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      let list = byPath.get(req.url);
      if (!list) byPath.set(req.url, (list = []));
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        list.push({ at, createdAt: Date.parse(body.createdAt), id: body.id });
      } catch {
        list.push({ at, createdAt: NaN, id: null });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return {
    server,
    at: (path) => byPath.get(path) || [],
    reset: (path) => byPath.set(path, []),
  };
}

/** Lags (receipt minus the event's createdAt) of receipts, with a loop: the arrays can be long. */
function lags(receipts) {
  const out = [];
  for (const r of receipts) if (!Number.isNaN(r.createdAt)) out.push(r.at - r.createdAt);
  return stats(out);
}

/** Earliest and latest receipt times, with a loop (never spread a long array into a call). */
function span(receipts) {
  let first = Infinity;
  let last = -Infinity;
  for (const r of receipts) {
    if (r.at < first) first = r.at;
    if (r.at > last) last = r.at;
  }
  return { first, last };
}

/** The events of the replayed merchant: `count` wallet.credited, one a millisecond over the last `count` ms before an hour ago. */
async function seedPastEvents(db, accountId, count) {
  const batch = 10_000;
  for (let from = 0; from < count; from += batch) {
    const n = Math.min(batch, count - from);
    await db.query(
      `INSERT INTO events (id, account_id, type, data, created_at, dispatched_at)
       SELECT 'evt_' || substr(md5(random()::text || i::text), 1, 22), $1, 'wallet.credited',
              jsonb_build_object('topupId', 'tu_bench' || i, 'amountCents', 100, 'currency', 'USD'),
              clock_timestamp() - interval '1 hour' - make_interval(secs => i / 1000.0), clock_timestamp()
         FROM generate_series($2::int, $3::int) AS i`,
      [accountId, from + 1, from + n],
    );
  }
}

async function endpoint(merchant, url, events) {
  const res = await api(merchant.key, 'POST', '/v1/webhook-endpoints', { url, events });
  if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.webhookEndpoint.id;
}

async function replayPhase(ctx, replayed, live) {
  const rx = receiver();
  await new Promise((r) => rx.server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${rx.server.address().port}`;
  const replayEndpoint = await endpoint(replayed, `${base}/replay`, ['wallet.credited']);
  await endpoint(live, `${base}/live`, ['reward.created', 'reward.sent']);
  log(`replay: writing ${REPLAY_EVENTS} past events`);
  await seedPastEvents(ctx.db, replayed.accountId, REPLAY_EVENTS);

  // Warm-up of the live path (connections to the receiver, the delivery code compiled).
  await paced([live], choiceBody, LIVE_RATE, 3);
  await sleep(1_000);

  const liveRun = async () => {
    rx.reset('/live');
    const load = await paced([live], choiceBody, LIVE_RATE, LIVE_S);
    // The live deliveries of the run: two events per create.
    const deadline = Date.now() + 60_000;
    while (rx.at('/live').length < load.ok * 2 && Date.now() < deadline) await sleep(100);
    return { load, receipts: rx.at('/live') };
  };

  await measured(ctx, 'replay_live_baseline', async () => {
    const { load, receipts } = await liveRun();
    return { liveCreatesPerS: LIVE_RATE, creates: load.ok, liveDeliveries: receipts.length, liveLagMs: lags(receipts) };
  });

  await measured(ctx, 'replay_live_during_replay', async () => {
    rx.reset('/replay');
    const requestedAt = Date.now();
    const res = await api(replayed.key, 'POST', `/v1/webhook-endpoints/${replayEndpoint}/replay`, {
      createdGte: new Date(Date.now() - 2 * 3_600_000).toISOString(),
      createdLt: new Date().toISOString(),
    });
    if (res.status !== 202) throw new Error(`replay: ${res.status} ${JSON.stringify(res.body)}`);
    const { eventCount } = res.body.replay;
    const { load, receipts } = await liveRun();
    const replayedDuringLive = rx.at('/replay').length;
    const liveEnd = Date.now();
    const deadline = Date.now() + WAIT_S * 1000;
    while (rx.at('/replay').length < eventCount && Date.now() < deadline) await sleep(250);
    const replayReceipts = rx.at('/replay');
    const { last } = span(replayReceipts);
    const unique = new Set();
    for (const r of replayReceipts) unique.add(r.id);
    return {
      liveCreatesPerS: LIVE_RATE,
      creates: load.ok,
      liveDeliveries: receipts.length,
      liveLagMs: lags(receipts),
      replay: {
        eventCount,
        delivered: replayReceipts.length,
        duplicates: replayReceipts.length - unique.size,
        deliveredDuringLiveRun: replayedDuringLive,
        deliveriesPerSDuringLiveRun: round(replayedDuringLive / ((liveEnd - requestedAt) / 1000), 0),
        // Every event at least once: a duplicate does not stand in for a missing event.
        complete: unique.size >= eventCount,
        wholeReplayS: replayReceipts.length ? round((last - requestedAt) / 1000, 1) : null,
      },
    };
  });
  const baseline = ctx.results.phases.replay_live_baseline.liveLagMs.p99;
  const during = ctx.results.phases.replay_live_during_replay.liveLagMs.p99;
  log(`replay: live lag p99 ${baseline} ms without a replay, ${during} ms during a replay of ${REPLAY_EVENTS} events`);
  rx.server.close();
}

module.exports = { replayPhase };
