'use strict';
// The expiry drain at scale: a merchant with EXPIRY_REWARDS open CHOICE rewards (seeded in SQL, with
// their holds) all due in the same second, drained by the service's own expiry sweep while a client
// keeps sending to that merchant at a steady rate. Reports the drain time (due → last reward.expired
// event) and the create latency before and during the drain.
const { STAMP, DURATION, log, sleep } = require('./config');
const { cannon, summarise, paced, choiceBody, createRequests } = require('./load');
const { measured } = require('./measure');
const { round, stats, appendAll } = require('./numbers');
const { api, cli } = require('./service');
const { invariants } = require('./database');

const EXPIRY_REWARDS = Number(process.env.BENCH_EXPIRY_REWARDS || 100_000);
const VALUE_CENTS = 1_000;
/**
 * The rewards fall due this many seconds after the phase starts: moving 100,000 expiry dates takes a
 * few seconds itself, and the sends of the rest of that time are the baseline of the create latency.
 */
const BEFORE_S = 15;
const SLICE_S = 2;
const MAX_DRAIN_S = 300;

/** Open rewards with value held (one HOLD ledger row each, as a send writes), due far in the future for now. */
async function seedDue(db, accountId) {
  log(`expiry: seeding ${EXPIRY_REWARDS} open rewards with their holds in SQL`);
  await db.query(
    `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency,
                          recipient_email, recipient_first_name, source, expires_at, sent_at, created_at)
     SELECT 'rw_bexp' || lpad(g::text, 12, '0'), $1, 'CHOICE', 'SENT', $3, $3, 'USD',
            'recipient' || g || '@example.test', 'Recipient', 'api', '2999-01-01', now(), now()
       FROM generate_series(1, $2::int) AS g`,
    [accountId, EXPIRY_REWARDS, VALUE_CENTS],
  );
  await db.query(
    `INSERT INTO wallet_transactions (id, account_id, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
     SELECT 'wtx_bexp' || lpad(g::text, 12, '0'), $1, 'HOLD', -($3::bigint), $3::bigint, 'bench seed', 'reward', 'rw_bexp' || lpad(g::text, 12, '0')
       FROM generate_series(1, $2::int) AS g`,
    [accountId, EXPIRY_REWARDS, VALUE_CENTS],
  );
  await db.query('ANALYZE rewards');
}

async function expiryPhase(ctx) {
  const { db, results } = ctx;
  const { accountId } = await cli(['merchant:create', '--name', 'Bench expiry', '--email', `bench-expiry-${STAMP}@example.test`, '--password', 'bench password 123']);
  const { key } = await cli(['api-key:create', '--account', accountId, '--scopes', 'read,write']);
  const merchant = { accountId, key };
  for (let t = 0; t < 2; t++) {
    const res = await api(key, 'POST', '/v1/topups', { amountCents: 100_000_000 });
    if (res.status !== 201) throw new Error(`top-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await seedDue(db, accountId);

  // The send rate: half of the measured single-merchant peak, or of a short peak taken here.
  let peak = results.phases.create_choice_1_merchant?.rps;
  if (!peak) peak = summarise(await cannon({ duration: 3, requests: createRequests([merchant], choiceBody) })).rps;
  const rate = Math.max(1, Math.round(peak / 2));

  await measured(ctx, 'expiry_drain_100k', async () => {
    const dueAt = Date.now() + BEFORE_S * 1000;
    await db.query(`UPDATE rewards SET expires_at = to_timestamp($2::double precision / 1000) WHERE account_id = $1 AND id LIKE 'rw_bexp%'`, [accountId, dueAt]);
    log(`expiry: ${EXPIRY_REWARDS} rewards due in ${round((dueAt - Date.now()) / 1000, 1)} s; sending ${rate}/s to the same merchant meanwhile`);
    const samples = [];
    let drainedAt = null;
    const watcher = (async () => {
      while (drainedAt === null && Date.now() < dueAt + MAX_DRAIN_S * 1000) {
        await sleep(100);
        if (Date.now() < dueAt) continue;
        const { rows } = await db.query(
          `SELECT EXISTS (SELECT 1 FROM rewards WHERE account_id = $1 AND expires_at <= now()
                            AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED') AND remaining_value_cents > 0) AS waiting`,
          [accountId],
        );
        if (!rows[0].waiting) drainedAt = Date.now();
      }
    })();
    // Sends in slices until the drain is over (and for at least DURATION seconds).
    const started = Date.now();
    while (drainedAt === null || Date.now() - started < DURATION * 1000) {
      if (Date.now() > dueAt + MAX_DRAIN_S * 1000) break;
      const slice = await paced([merchant], choiceBody, rate, SLICE_S, { samples: true });
      appendAll(samples, slice.samples);
    }
    await watcher;
    const { rows: [ev] } = await db.query(
      `SELECT count(*)::int AS n, (extract(epoch FROM min(created_at)) * 1000)::float8 AS first, (extract(epoch FROM max(created_at)) * 1000)::float8 AS last
         FROM events WHERE account_id = $1 AND type = 'reward.expired'`,
      [accountId],
    );
    const { rows: [state] } = await db.query(
      `SELECT count(*) FILTER (WHERE status = 'EXPIRED')::int AS expired,
              (SELECT count(*) FROM wallet_transactions WHERE account_id = $1 AND kind = 'RELEASE')::int AS releases
         FROM rewards WHERE account_id = $1 AND id LIKE 'rw_bexp%'`,
      [accountId],
    );
    const before = samples.filter(([at]) => at < dueAt);
    const during = samples.filter(([at]) => at >= ev.first && at <= ev.last);
    const after = samples.filter(([at]) => at > ev.last);
    const createStats = (xs) => ({ ...stats(xs.map(([, ms]) => ms)), errors: xs.filter(([, , ok]) => !ok).length });
    return {
      seededRewards: EXPIRY_REWARDS,
      expired: state.expired,
      releases: state.releases,
      expiredEvents: ev.n,
      drainS: round((ev.last - ev.first) / 1000, 2),
      firstExpiryAfterDueS: round((ev.first - dueAt) / 1000, 2),
      dueToDrainedS: drainedAt === null ? null : round((drainedAt - dueAt) / 1000, 1),
      expiredPerS: round(ev.n / ((ev.last - ev.first) / 1000 || 1), 0),
      sendRate: rate,
      createsBefore: createStats(before),
      createsDuring: createStats(during),
      createsAfter: createStats(after),
      p50: stats(during.map(([, ms]) => ms)).p50,
      p99: stats(during.map(([, ms]) => ms)).p99,
    };
  });
  results.invariants.push(await invariants(db, 'after the expiry drain', [accountId]));
}

module.exports = { expiryPhase };
