'use strict';
// Scheduled sends falling due together (docs/delivery.md, Scheduled sends): a merchant sends
// SCHEDULED_COUNT CHOICE rewards with a deliverAt through the bulk API (value held, CREATED), then
// their delivery times are moved to the same instant. The service's due-sender drains them in
// batches while a client keeps sending to that merchant at a steady rate. Reports the time from due
// to the last one SENT, and the send latency before the rewards fall due against during the drain.
const { DURATION, log, sleep } = require('./config');
const { cannon, summarise, paced, choiceBody, createRequests } = require('./load');
const { measured } = require('./measure');
const { round, stats, appendAll } = require('./numbers');
const { api } = require('./service');
const { merchant } = require('./scale-phase');
const { invariants } = require('./database');

const SCHEDULED_COUNT = Number(process.env.BENCH_SCHEDULED_COUNT || 100_000);
const VALUE_CENTS = 1_000;
const BULK = 500;
/**
 * Due this many seconds after the phase starts: the sends before are the latency baseline. Moving
 * 100,000 delivery times and vacuuming after the move take several seconds themselves, and the
 * baseline starts when they are done, so this leaves over half a minute of sends (several hundred)
 * for the baseline's p99.
 */
const BEFORE_S = 60;
const SLICE_S = 2;
const MAX_DRAIN_S = 600;
/**
 * An analysis knob, not the issue's figure: with BENCH_SCHEDULED_SPREAD=N the steady sends go to N other
 * merchants in turn instead of the draining one, so no two sends in a row share a wallet row. Set against a
 * run without it, this says how much of the sends' tail during the drain is their queue on one wallet row
 * (bench/ANALYSIS.md) and how much is the machine being busy.
 */
const SPREAD = Number(process.env.BENCH_SCHEDULED_SPREAD || 0);

/** SCHEDULED_COUNT scheduled sends through the bulk API, a day ahead for now. */
async function sendScheduled(key) {
  log(`scheduled: sending ${SCHEDULED_COUNT} scheduled rewards through the bulk API`);
  const deliverAt = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
  for (let sent = 0; sent < SCHEDULED_COUNT; sent += BULK) {
    const rewards = Array.from({ length: Math.min(BULK, SCHEDULED_COUNT - sent) }, (_, i) => ({
      type: 'CHOICE',
      valueCents: VALUE_CENTS,
      recipient: { email: `scheduled${sent + i}@example.test`, firstName: 'Ada' },
      deliverAt,
      campaign: 'bench-scheduled',
    }));
    const res = await api(key, 'POST', '/v1/rewards/bulk', { rewards });
    if (res.status !== 207 || res.body.failed !== 0) throw new Error(`scheduled bulk failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
}

/** A top-up of 1,000,000.00 USD, which must be accepted. */
async function topUp(key) {
  const res = await api(key, 'POST', '/v1/topups', { amountCents: 100_000_000 });
  if (res.status !== 201) throw new Error(`top-up failed: ${res.status} ${JSON.stringify(res.body)}`);
}

async function scheduledPhase(ctx) {
  const { db, results } = ctx;
  const drainer = await merchant('Bench scheduled');
  const { accountId, key } = drainer;
  const topUps = Math.ceil((SCHEDULED_COUNT * VALUE_CENTS) / 100_000_000) + 1;
  for (let t = 0; t < topUps; t++) await topUp(key);
  // The merchants the steady sends go to: the draining one, or SPREAD others.
  const senders = [];
  for (let i = 0; i < SPREAD; i++) {
    senders.push(await merchant(`Bench scheduled other ${i}`));
    await topUp(senders[i].key);
  }
  if (SPREAD === 0) senders.push(drainer);
  await sendScheduled(key);
  // The baseline is sends with nothing else going on: with reminder settings the reminder sweep looks once at
  // each new send (docs/delivery.md, Reminders), and a hundred thousand of them keep it busy for a while after
  // the sends. This merchant has none, so since sends leave those alone there is nothing to wait for; kept for
  // a run of the phase against a merchant with settings.
  for (;;) {
    const { rows } = await db.query(`SELECT EXISTS (SELECT 1 FROM rewards WHERE account_id = $1 AND remind_at <= now()) AS looking`, [accountId]);
    if (!rows[0].looking) break;
    await sleep(500);
  }

  // BENCH_SCHEDULED_RATE fixes the steady sends' rate, so runs compared with each other offer the same load.
  let rate = Number(process.env.BENCH_SCHEDULED_RATE || 0);
  if (!rate) {
    let peak = results.phases.create_choice_1_merchant?.rps;
    if (!peak) peak = summarise(await cannon({ duration: 3, requests: createRequests([drainer], choiceBody) })).rps;
    rate = Math.max(1, Math.round(peak / 2));
  }
  if (SPREAD > 0) log(`scheduled: the steady sends go to ${SPREAD} other merchants in turn (BENCH_SCHEDULED_SPREAD), not the draining one`);

  await measured(ctx, `scheduled_drain_${SCHEDULED_COUNT}`, async () => {
    const dueAt = Date.now() + BEFORE_S * 1000;
    await db.query(`UPDATE rewards SET deliver_at = to_timestamp($2::double precision / 1000) WHERE account_id = $1 AND campaign = 'bench-scheduled'`, [accountId, dueAt]);
    // The move is the bench's, not the service's: its dead rows are cleared before the baseline, as real
    // sends made with their own deliverAt would have none.
    await db.query('VACUUM ANALYZE rewards');
    log(`scheduled: ${SCHEDULED_COUNT} rewards due in ${round((dueAt - Date.now()) / 1000, 1)} s (the baseline); sending ${rate}/s to ${SPREAD > 0 ? `${SPREAD} other merchants` : 'the same merchant'} meanwhile`);
    const samples = [];
    let drainedAt = null;
    const watcher = (async () => {
      while (drainedAt === null && Date.now() < dueAt + MAX_DRAIN_S * 1000) {
        await sleep(100);
        if (Date.now() < dueAt) continue;
        const { rows } = await db.query(`SELECT EXISTS (SELECT 1 FROM rewards WHERE account_id = $1 AND status = 'CREATED' AND deliver_at <= now()) AS waiting`, [accountId]);
        if (!rows[0].waiting) drainedAt = Date.now();
      }
    })();
    const started = Date.now();
    while (drainedAt === null || Date.now() - started < DURATION * 1000) {
      if (Date.now() > dueAt + MAX_DRAIN_S * 1000) break;
      const slice = await paced(senders, choiceBody, rate, SLICE_S, { samples: true });
      appendAll(samples, slice.samples);
    }
    await watcher;
    const { rows: [ev] } = await db.query(
      `SELECT count(*)::int AS n, (extract(epoch FROM min(e.created_at)) * 1000)::float8 AS first, (extract(epoch FROM max(e.created_at)) * 1000)::float8 AS last
         FROM reward_events e JOIN rewards r ON r.id = e.reward_id
        WHERE r.account_id = $1 AND r.campaign = 'bench-scheduled' AND e.type = 'reward.sent'`,
      [accountId],
    );
    const { rows: [state] } = await db.query(
      `SELECT count(*) FILTER (WHERE status = 'SENT' OR status = 'OPENED')::int AS sent,
              (SELECT count(*) FROM mail_jobs m JOIN rewards r2 ON r2.id = m.reward_id WHERE r2.account_id = $1 AND r2.campaign = 'bench-scheduled')::int AS mail_jobs
         FROM rewards WHERE account_id = $1 AND campaign = 'bench-scheduled'`,
      [accountId],
    );
    const before = samples.filter(([at]) => at < dueAt);
    const during = samples.filter(([at]) => at >= ev.first && at <= ev.last);
    const createStats = (xs) => ({ ...stats(xs.map(([, ms]) => ms)), errors: xs.filter(([, , ok]) => !ok).length });
    return {
      scheduledRewards: SCHEDULED_COUNT,
      sent: state.sent,
      mailJobs: state.mail_jobs,
      sentEvents: ev.n,
      drainS: round((ev.last - ev.first) / 1000, 2),
      firstSendAfterDueS: round((ev.first - dueAt) / 1000, 2),
      dueToAllSentS: drainedAt === null ? null : round((drainedAt - dueAt) / 1000, 1),
      sentPerS: round(ev.n / ((ev.last - ev.first) / 1000 || 1), 0),
      sendRate: rate,
      sendsSpreadOver: SPREAD || null,
      createsBefore: createStats(before),
      createsDuring: createStats(during),
      p50: stats(during.map(([, ms]) => ms)).p50,
      p99: stats(during.map(([, ms]) => ms)).p99,
      p99Before: stats(before.map(([, ms]) => ms)).p99,
    };
  });
  results.invariants.push(await invariants(db, 'after the scheduled drain', [accountId]));
}

module.exports = { scheduledPhase, SCHEDULED_COUNT };
