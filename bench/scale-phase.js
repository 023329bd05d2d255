'use strict';
// Reads that must not grow with the account (docs/pagination.md): one merchant seeded in SQL with
// BENCH_SCALE_REWARDS rewards (default 1,000,000; a quarter REDEEMED with an issued card) and one
// with 1,000, the same reads timed on both, one request at a time (p50 of SAMPLES); then the list's
// throughput against the detail's under load on the big merchant.
const path = require('node:path');
const { ROOT, SERVICE_ENV, STAMP, log } = require('./config');
const { cli, api } = require('./service');
const { readPhase } = require('./phases');
const { round, stats } = require('./numbers');

const BIG = Number(process.env.BENCH_SCALE_REWARDS || 1_000_000);
const SMALL = 1_000;
const CHUNK = 100_000;
const SAMPLES = 100;

/**
 * The key ring the bench-started service reads (its ENCRYPTION_KEYS, or the development key file it
 * shares with `npm start`), from the build: seeded cards carry credentials sealed for their own card
 * and account, as the service writes them (docs/secrets.md), or reading them would fail.
 */
function serviceKeyRing() {
  const { KeyRing } = require(path.join(ROOT, 'dist/libs/core/src/crypto/key-ring'));
  const { developmentKeyRing } = require(path.join(ROOT, 'dist/libs/core/src/crypto/development-keys'));
  const { cardCredentialsContext } = require(path.join(ROOT, 'dist/libs/rewards/src/lifecycle/reward.repository'));
  const ring = KeyRing.fromText(SERVICE_ENV.ENCRYPTION_KEYS || developmentKeyRing(ROOT));
  const credentials = JSON.stringify([{ type: 'code', label: 'Code', value: 'BENCH-0000-0000' }]);
  return { seal: (cardId, accountId) => ring.encrypt(credentials, cardCredentialsContext(cardId, accountId)) };
}

/**
 * `count` rewards for `accountId` in chunks of generate_series: statuses SENT, REDEEMED (with an
 * ISSUED card), CANCELED and EXPIRED in turn; external ids unique (`order-<n>`), as order numbers are; ten
 * campaigns in turn; one reward a second, the newest just before the seed ran.
 */
async function seedRewards(db, accountId, tag, count) {
  const started = Date.now();
  const keyRing = serviceKeyRing();
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1);
    await db.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, external_id, brand_name, reward_name, redeemed_at, created_at, campaign)
       SELECT 'rw_' || $2 || lpad(g::text, 8, '0'), $1, 'CHOICE', s.status, 5000, CASE WHEN s.status = 'SENT' THEN 5000 ELSE 0 END, 'USD',
              'recipient' || g || '@example.test', 'Recipient', 'api', 'order-' || g, 'Bench brand', 'Bench card',
              CASE WHEN s.status = 'REDEEMED' THEN now() END, now() - make_interval(secs => $5 - g),
              'campaign-' || (g % 10)
         FROM generate_series($3::int, $4::int) AS g
         CROSS JOIN LATERAL (SELECT (ARRAY['SENT', 'REDEEMED', 'CANCELED', 'EXPIRED'])[1 + g % 4] AS status) AS s`,
      // $5, not $4: the age counts from the last reward of the whole seed, not of the chunk (which made every
      // chunk cover the same last 28 hours, ten rewards a second at a million, instead of one).
      [accountId, tag, from, to, count],
    );
    // A quarter of the rewards (REDEEMED ones) have an ISSUED card, its credentials sealed per card.
    const cardIds = [];
    const sealed = [];
    for (let g = from; g <= to; g++) {
      if (g % 4 !== 1) continue;
      const id = `card_${tag}${String(g).padStart(8, '0')}`;
      cardIds.push(id);
      sealed.push(keyRing.seal(id, accountId));
    }
    await db.query(
      `INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, amount_cents, currency, status,
                                 credentials, issued_at)
       SELECT c.id, 'rw_' || substr(c.id, 6), $1, 'U-BENCH', 'Bench card', 'bench', 'Bench brand',
              5000, 'USD', 'ISSUED', c.sealed, now()
         FROM unnest($2::text[], $3::text[]) AS c (id, sealed)`,
      [accountId, cardIds, sealed],
    );
  }
  log(`scale: seeded ${count} rewards for ${tag} in ${round((Date.now() - started) / 1000)} s`);
}

async function merchant(name) {
  const { accountId } = await cli(['merchant:create', '--name', name, '--email', `${name.replace(/\W/g, '-')}-${STAMP}@example.test`, '--password', 'bench password 123']);
  const { key } = await cli(['api-key:create', '--account', accountId, '--scopes', 'read,write']);
  return { accountId, key };
}

/** Milliseconds of one GET (it must answer 200). */
async function timedOnce(key, path) {
  const started = process.hrtime.bigint();
  const res = await api(key, 'GET', path);
  const took = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 200) throw new Error(`scale: ${path} answered ${res.status}`);
  return took;
}

/**
 * p50 of one request at a time (after a warm-up), so the figure is the read's cost, not the queue's;
 * the two merchants' requests alternate, so a change in the machine's load falls on both alike.
 */
async function timedPair(big, small) {
  const ms = { big: [], small: [] };
  for (let i = 0; i < SAMPLES + 5; i++) {
    const onBig = await timedOnce(big.key, big.path);
    const onSmall = await timedOnce(small.key, small.path);
    if (i < 5) continue;
    ms.big.push(onBig);
    ms.small.push(onSmall);
  }
  return { big: stats(ms.big), small: stats(ms.small) };
}

/**
 * Execution time of the chart's one query (the kept per-day sums of 90 days, as
 * RewardsService.sentPerDay reads them through readListTotals), by EXPLAIN ANALYZE: median of 5.
 */
async function dailyQueryMs(db, accountId) {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const lists = Array.from({ length: 90 }, (_, i) => `sent_cents:USD:${new Date(today - i * 86_400_000).toISOString().slice(0, 10)}`);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await db.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT list, sum(n) AS n FROM (
         SELECT list, n FROM list_counts WHERE account_id = $1 AND list = ANY($2) AND level = 0
         UNION ALL
         SELECT list, n FROM list_count_changes WHERE account_id = $1 AND list = ANY($2)) AS counted GROUP BY list`,
      [accountId, lists],
    );
    times.push(rows[0]['QUERY PLAN'][0]['Execution Time']);
  }
  return round(times.sort((a, b) => a - b)[2], 2);
}

async function scalePhase(ctx) {
  const big = await merchant('Bench scale big');
  const small = await merchant('Bench scale small');
  await seedRewards(ctx.db, big.accountId, 'big', BIG);
  await seedRewards(ctx.db, small.accountId, 'small', SMALL);
  // Fold the seed's count changes (the worker would within seconds) and set the visibility map, as autovacuum would.
  while (Number((await ctx.db.query('SELECT compact_list_counts(100000) AS n')).rows[0].n) > 0);
  await ctx.db.query('VACUUM ANALYZE rewards, reward_cards, list_counts, list_count_changes');

  const deepPage = Math.min(5_000, Math.floor(BIG / 100));
  const lastHour = new Date(Date.now() - 3_600_000).toISOString();
  // Ten minutes of each merchant's own history, up to its newest reward: 600 rewards on either (one a second), so
  // the two pages count the same matches and differ only in the account's size. An hour back (above) the small
  // merchant has 1,000 and the big one 3,600, and the totals count what they match.
  const newest = async (m) =>
    (await ctx.db.query('SELECT max(created_at) AS at FROM rewards WHERE account_id = $1', [m.accountId])).rows[0].at.getTime();
  const tenMinutesOf = { [big.accountId]: new Date((await newest(big)) - 599_500).toISOString(), [small.accountId]: new Date((await newest(small)) - 599_500).toISOString() };
  const reads = [
    ['list_first_page', () => '/v1/rewards?page_size=100'],
    ['list_deep_page', (m) => `/v1/rewards?page_size=100&page=${m === big ? deepPage : Math.floor(SMALL / 100)}`],
    ['list_status_sent', () => '/v1/rewards?page_size=100&status=SENT'],
    ['list_external_id', (m) => `/v1/rewards?page_size=100&external_id=order-${m === big ? Math.floor(BIG / 2) : 500}`],
    ['overview', () => '/v1/account/overview'],
    // The last hour's rewards of one campaign: 360 of 3,600 at a million, 100 of 1,000 (all of them that recent) at a thousand.
    ['list_campaign_last_hour', () => `/v1/rewards?page_size=100&campaign=campaign-3&created_gte=${lastHour}`],
    ['list_status_last_hour', () => `/v1/rewards?page_size=100&status=SENT&created_gte=${lastHour}`],
    ['list_campaign_last_10_min', (m) => `/v1/rewards?page_size=100&campaign=campaign-3&created_gte=${tenMinutesOf[m.accountId]}`],
    ['list_status_last_10_min', (m) => `/v1/rewards?page_size=100&status=SENT&created_gte=${tenMinutesOf[m.accountId]}`],
    // A recipient search (docs/pagination.md, Filters): a prefix one reward's address starts with, on either merchant
    // (recipient500000 at a million, recipient500 at a thousand), so the two totals count alike.
    ['list_recipient_prefix', (m) => `/v1/rewards?page_size=100&recipient=recipient${m === big ? Math.floor(BIG / 2) : Math.floor(SMALL / 2)}`],
    // Largest value first (docs/pagination.md, Sorting): the (account_id, face_value_cents, id) index, walked backwards.
    ['list_sort_value_desc', () => '/v1/rewards?page_size=100&sort=-faceValueCents'],
    // The Overview chart: value sent per day, 90 days (docs/dashboard.md, Overview chart).
    ['overview_daily_90', () => '/v1/account/overview/daily?days=90'],
  ];
  const figures = { seededRewards: { big: BIG, small: SMALL }, deepPage, p50Ms: {} };
  for (const [name, path] of reads) {
    const { big: onBig, small: onSmall } = await timedPair({ key: big.key, path: path(big) }, { key: small.key, path: path(small) });
    figures.p50Ms[name] = { big: onBig.p50, small: onSmall.p50, ratio: round(onBig.p50 / onSmall.p50, 2), bigPath: path(big) };
    log(`scale: ${name} p50 ${onBig.p50} ms (${BIG}) vs ${onSmall.p50} ms (${SMALL})`);
  }
  figures.dailyQueryMs = await dailyQueryMs(ctx.db, big.accountId);
  log(`scale: the chart's query (90 days, USD) ${figures.dailyQueryMs} ms by EXPLAIN ANALYZE at ${BIG} rewards`);
  figures.p50Ms.deep_vs_first_page_big = round(figures.p50Ms.list_deep_page.big / figures.p50Ms.list_first_page.big, 2);

  // Throughput on the big merchant: the list page of 100 against one reward by id.
  const ids = (await api(big.key, 'GET', '/v1/rewards?page_size=100')).body.rewards.map((r) => r.id);
  await readPhase(ctx, 'scale_get_rewards_list_100', big.key, () => '/v1/rewards?page_size=100');
  let n = 0;
  await readPhase(ctx, 'scale_get_reward_by_id', big.key, () => `/v1/rewards/${ids[n++ % ids.length]}`);
  const list = ctx.results.phases.scale_get_rewards_list_100;
  const byId = ctx.results.phases.scale_get_reward_by_id;
  figures.listVsDetailThroughput = round(list.rps / byId.rps, 2);
  ctx.results.phases.scale_reads = figures;
  log(`scale: list ${list.rps} req/s vs by id ${byId.rps} req/s (${figures.listVsDetailThroughput}); ${JSON.stringify(figures.p50Ms)}`);
}

module.exports = { scalePhase, seedRewards, merchant };
