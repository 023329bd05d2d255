'use strict';
// What the bench reads from the service's database: the background backlog (and waiting for it to
// drain), what the backends wait on, reward counts, and the ledger invariants checked after each phase.
const { Client } = require('pg');
const { DATABASE_URL, APPLICATION_NAME, log, sleep } = require('./config');
const { round } = require('./numbers');

async function connect() {
  const client = new Client({ connectionString: DATABASE_URL, application_name: APPLICATION_NAME });
  await client.connect();
  return client;
}

/**
 * Counts, every 100 ms until stop(), the rows `sql` gives (`{key, n}`, grouped) from the bench
 * database's pg_stat_activity; stop() answers the `limit` keys seen most, each with its average
 * number of backends.
 */
function activitySampler(sql, params, limit) {
  const client = new Client({ connectionString: DATABASE_URL, application_name: APPLICATION_NAME });
  const counts = new Map();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query(sql, params);
      samples++;
      for (const r of rows) counts.set(r.key, (counts.get(r.key) || 0) + r.n);
      await sleep(100);
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return [...counts.entries()]
        .map(([key, n]) => ({ key, avg: round(n / (samples || 1), 2) }))
        .sort((a, b) => b.avg - a.avg)
        .slice(0, limit);
    },
  };
}

/** Samples pg_stat_activity of the bench database: what the backends wait on. */
function waitSampler() {
  const sampler = activitySampler(
        `SELECT CASE WHEN state = 'idle in transaction' THEN 'idle in transaction (waiting on the app)'
                     WHEN wait_event IS NOT NULL THEN wait_event_type || ':' || wait_event ELSE 'CPU (active)' END AS key,
                count(*)::int AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'
          GROUP BY 1`,
    [],
    8,
  );
  return { stop: async () => (await sampler.stop()).map(({ key, avg }) => ({ wait: key, avgBackends: avg })) };
}

async function backlog(db) {
  const { rows } = await db.query(`SELECT
      (SELECT count(*) FROM mail_jobs WHERE status = 'PENDING')::int AS mail,
      (SELECT count(*) FROM reward_cards WHERE status = 'PENDING')::int AS cards,
      (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int AS events,
      (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING')::int AS deliveries`);
  return rows[0];
}

/** Waits (up to 45 s) for the background work of earlier phases to finish, so it does not tax the next. */
async function drain(db) {
  const deadline = Date.now() + 45_000;
  let b = await backlog(db);
  while (b.mail + b.cards + b.events + b.deliveries > 0 && Date.now() < deadline) {
    await sleep(500);
    b = await backlog(db);
  }
  return b;
}

async function rewardCount(db, accountIds) {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM rewards WHERE account_id = ANY($1)', [accountIds]);
  return rows[0].n;
}

/** Balances ≥ 0 and equal to the sums of their ledger rows, per wallet (one per currency) of the given accounts. */
async function invariants(db, label, accountIds) {
  const { rows } = await db.query(
    `SELECT w.account_id, w.currency, w.available_cents::bigint AS available, w.reserved_cents::bigint AS reserved,
            COALESCE(t.a, 0)::bigint AS available_sum, COALESCE(t.r, 0)::bigint AS reserved_sum
       FROM wallets w
       LEFT JOIN (SELECT account_id, currency, SUM(available_delta_cents) AS a, SUM(reserved_delta_cents) AS r
                    FROM wallet_transactions WHERE account_id = ANY($1) GROUP BY account_id, currency) t
              ON t.account_id = w.account_id AND t.currency = w.currency
      WHERE w.account_id = ANY($1)`,
    [accountIds],
  );
  const bad = rows.filter((r) => Number(r.available) < 0 || Number(r.reserved) < 0 || r.available !== r.available_sum || r.reserved !== r.reserved_sum);
  const accounts = new Set(rows.map((r) => r.account_id)).size;
  const out = { label, wallets: rows.length, ok: bad.length === 0 && accounts === accountIds.length, violations: bad };
  if (!out.ok) log(`LEDGER INVARIANTS VIOLATED ${label}: ${JSON.stringify(bad)}`);
  return out;
}

/**
 * Samples the statements the service's backends are running (pg_stat_activity every 100 ms, text
 * normalised): a stand-in for pg_stat_statements, which the shared server does not load. The share of
 * samples a statement is seen active in says where the database time goes.
 */
function statementSampler() {
  const sampler = activitySampler(
        // A session idle inside a transaction is waiting on the service: named by the last statement it ran.
        `SELECT CASE WHEN state = 'active' THEN '' ELSE '(idle in transaction after) ' END
                || regexp_replace(left(query, 160), '\\s+', ' ', 'g') AS key, count(*)::int AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
            AND application_name <> $1 AND state IN ('active', 'idle in transaction')
          GROUP BY 1`,
    [APPLICATION_NAME],
    6,
  );
  return { stop: async () => (await sampler.stop()).map(({ key, avg }) => ({ statement: key, avgActiveBackends: avg })) };
}

module.exports = { connect, waitSampler, statementSampler, backlog, drain, rewardCount, invariants };
