'use strict';
// What the chaos run checks by SQL against its private database. `snapshotChecks` hold at every
// moment (each is one statement, so one snapshot); `finalChecks` hold once the system has settled.
// Each check returns a list of violations (strings); empty means it holds.
const { Pool } = require('pg');
const { sleep } = require('./util');

const OPEN = `('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')`;
/**
 * How long past its expiresAt an open reward may still be open when the final audit looks. The cluster's
 * workers sweep expiries every second (EXPIRY_SWEEP_INTERVAL_MS in cluster.js), and the workload's last
 * rewards expire up to 20 s after it stops, so one can fall due just before the audit: that is not a miss.
 */
const EXPIRY_GRACE_S = 5;

class Db {
  constructor(url) {
    this.pool = new Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 3000, application_name: 'chaos-audit' });
    // A PostgreSQL crash kills idle connections too; the pool replaces them.
    this.pool.on('error', () => {});
  }

  async query(sql, params) {
    return (await this.pool.query(sql, params)).rows;
  }

  end() {
    return this.pool.end();
  }
}

/**
 * Work created in [after, before) that is still not done; null when the database does not answer.
 * `after` keeps what an earlier fault left stuck out of a later fault's figures.
 */
async function backlogBefore(db, before, after = 0) {
  try {
    const [row] = await db.query(
      `SELECT
         (SELECT count(*) FROM mail_jobs WHERE status = 'PENDING' AND created_at < $1 AND created_at >= $2)::int AS mail,
         (SELECT count(*) FROM reward_cards WHERE status = 'PENDING' AND created_at < $1 AND created_at >= $2)::int AS cards,
         (SELECT count(*) FROM events WHERE dispatched_at IS NULL AND created_at < $1 AND created_at >= $2)::int AS events,
         (SELECT count(*) FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.status = 'PENDING' AND e.created_at < $1 AND e.created_at >= $2)::int AS deliveries,
         (SELECT count(*) FROM rewards WHERE status IN ${OPEN} AND expires_at < $1 AND expires_at >= $2)::int AS expiries`,
      [new Date(before).toISOString(), new Date(after).toISOString()],
    );
    return row;
  } catch {
    return null;
  }
}

const backlogTotal = (b) => (b ? b.mail + b.cards + b.events + b.deliveries + b.expiries : Infinity);

/**
 * Waits until the work created before `before` is done, or `timeoutMs`; returns when (ms epoch) or null.
 * `before` 'now': the work created up to each look, including what the workers create meanwhile.
 */
async function waitDrained(db, before, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = null;
  while (Date.now() < deadline) {
    last = await backlogBefore(db, before === 'now' ? Date.now() : before);
    if (backlogTotal(last) === 0) return { at: Date.now(), backlog: last };
    await sleep(500);
  }
  return { at: null, backlog: last };
}

/** Invariants true at any moment: the ledger, per-card and per-reward money, one reward per key. */
async function snapshotChecks(db) {
  const violations = [];
  const wallets = await db.query(
    `SELECT w.account_id, w.available_cents::bigint AS available, w.reserved_cents::bigint AS reserved,
            COALESCE(t.a, 0)::bigint AS available_sum, COALESCE(t.r, 0)::bigint AS reserved_sum,
            COALESCE(o.open_value, 0)::bigint AS open_value, COALESCE(p.pending, 0)::bigint AS pending_cards
       FROM wallets w
       LEFT JOIN (SELECT account_id, SUM(available_delta_cents) AS a, SUM(reserved_delta_cents) AS r
                    FROM wallet_transactions GROUP BY account_id) t ON t.account_id = w.account_id
       LEFT JOIN (SELECT account_id, SUM(remaining_value_cents) AS open_value FROM rewards
                   WHERE status IN ${OPEN} GROUP BY account_id) o ON o.account_id = w.account_id
       LEFT JOIN (SELECT account_id, SUM(amount_cents) AS pending FROM reward_cards
                   WHERE status = 'PENDING' GROUP BY account_id) p ON p.account_id = w.account_id`,
  );
  for (const w of wallets) {
    if (Number(w.available) < 0 || Number(w.reserved) < 0) violations.push(`wallet ${w.account_id} negative: ${w.available}/${w.reserved}`);
    if (w.available !== w.available_sum) violations.push(`wallet ${w.account_id} available ${w.available} != sum of deltas ${w.available_sum}`);
    if (w.reserved !== w.reserved_sum) violations.push(`wallet ${w.account_id} reserved ${w.reserved} != sum of deltas ${w.reserved_sum}`);
    const held = BigInt(w.open_value) + BigInt(w.pending_cards);
    if (BigInt(w.reserved) !== held) {
      violations.push(`wallet ${w.account_id} reserved ${w.reserved} != open rewards ${w.open_value} + pending cards ${w.pending_cards}`);
    }
  }
  // A card is captured exactly when issued, and never both captured and released.
  const cards = await db.query(
    `SELECT c.id, c.status,
            count(*) FILTER (WHERE t.kind = 'CAPTURE')::int AS captures,
            count(*) FILTER (WHERE t.kind = 'RELEASE')::int AS releases
       FROM reward_cards c LEFT JOIN wallet_transactions t ON t.related_type = 'card' AND t.related_id = c.id
      GROUP BY c.id, c.status
     HAVING count(*) FILTER (WHERE t.kind = 'CAPTURE') > 0 AND count(*) FILTER (WHERE t.kind = 'RELEASE') > 0
         OR (c.status = 'ISSUED') <> (count(*) FILTER (WHERE t.kind = 'CAPTURE') = 1)
         OR c.status = 'PENDING' AND count(t.id) > 0
      LIMIT 20`,
  );
  for (const c of cards) violations.push(`card ${c.id} ${c.status}: ${c.captures} capture(s), ${c.releases} release(s)`);
  // Per reward, nothing both returned and spent: the hold equals what was captured, what was released
  // and what the reward still holds (its open remaining value and its pending cards).
  const rewards = await db.query(
    `WITH card_money AS (
       SELECT c.reward_id,
              SUM(CASE WHEN c.status = 'PENDING' THEN c.amount_cents ELSE 0 END) AS pending,
              COALESCE(SUM(-t.reserved_delta_cents) FILTER (WHERE t.kind = 'CAPTURE'), 0) AS captured,
              COALESCE(SUM(-t.reserved_delta_cents) FILTER (WHERE t.kind = 'RELEASE'), 0) AS card_released
         FROM reward_cards c LEFT JOIN wallet_transactions t ON t.related_type = 'card' AND t.related_id = c.id
        GROUP BY c.reward_id)
     SELECT r.id, r.status, h.reserved_delta_cents AS held, COALESCE(rel.released, 0) AS released,
            COALESCE(m.captured, 0) AS captured, COALESCE(m.card_released, 0) AS card_released,
            COALESCE(m.pending, 0) AS pending, CASE WHEN r.status IN ${OPEN} THEN r.remaining_value_cents ELSE 0 END AS open_value
       FROM rewards r
       LEFT JOIN wallet_transactions h ON h.kind = 'HOLD' AND h.related_type = 'reward' AND h.related_id = r.id
       LEFT JOIN (SELECT related_id, SUM(-reserved_delta_cents) AS released FROM wallet_transactions
                   WHERE kind = 'RELEASE' AND related_type = 'reward' GROUP BY related_id) rel ON rel.related_id = r.id
       LEFT JOIN card_money m ON m.reward_id = r.id
      WHERE h.reserved_delta_cents IS DISTINCT FROM
            COALESCE(rel.released, 0) + COALESCE(m.captured, 0) + COALESCE(m.card_released, 0) + COALESCE(m.pending, 0)
            + CASE WHEN r.status IN ${OPEN} THEN r.remaining_value_cents ELSE 0 END
         OR h.reserved_delta_cents <> r.face_value_cents
      LIMIT 20`,
  );
  for (const r of rewards) {
    violations.push(
      `reward ${r.id} ${r.status}: held ${r.held} != released ${r.released} + captured ${r.captured} + card releases ${r.card_released} + pending ${r.pending} + open ${r.open_value}`,
    );
  }
  const dupes = await db.query(
    `SELECT account_id, external_id, count(*)::int AS n FROM rewards WHERE external_id IS NOT NULL
      GROUP BY account_id, external_id HAVING count(*) > 1 LIMIT 20`,
  );
  for (const d of dupes) violations.push(`idempotency key ${d.external_id} made ${d.n} rewards`);
  return violations;
}

/**
 * Once settled: nothing pending; every reward a client was told about exists under its key; no pick key
 * made two cards; every event delivered to its endpoint (and the duplicate rate); every e-mail sent
 * and received by the sink.
 */
async function finalChecks(db, { knowledge, receiver, sink, endpoints }) {
  const violations = [...knowledge.violations];
  const facts = {};
  const [pending] = await db.query(
    `SELECT (SELECT count(*) FROM reward_cards WHERE status = 'PENDING')::int AS cards,
            (SELECT count(*) FROM mail_jobs WHERE status = 'PENDING')::int AS mail_pending,
            (SELECT count(*) FROM mail_jobs WHERE status = 'FAILED')::int AS mail_failed,
            (SELECT count(*) FROM mail_jobs)::int AS mail_jobs,
            (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int AS undispatched,
            (SELECT count(*) FROM webhook_deliveries WHERE status <> 'SUCCEEDED')::int AS deliveries_unfinished,
            (SELECT count(*) FROM rewards WHERE status IN ${OPEN} AND expires_at < now() - make_interval(secs => ${EXPIRY_GRACE_S}))::int AS overdue_expiries,
            (SELECT count(*) FROM rewards)::int AS rewards,
            (SELECT count(*) FROM reward_cards)::int AS cards_total,
            (SELECT count(*) FROM events)::int AS events`,
  );
  Object.assign(facts, { rewards: pending.rewards, cards: pending.cards_total, events: pending.events, mailJobs: pending.mail_jobs });
  if (pending.cards > 0) violations.push(`${pending.cards} card(s) still PENDING after settling`);
  if (pending.mail_pending > 0) violations.push(`${pending.mail_pending} e-mail(s) still PENDING after settling`);
  if (pending.mail_failed > 0) violations.push(`${pending.mail_failed} e-mail(s) FAILED (the sink never refuses)`);
  if (pending.undispatched > 0) violations.push(`${pending.undispatched} event(s) never dispatched`);
  if (pending.deliveries_unfinished > 0) violations.push(`${pending.deliveries_unfinished} webhook deliveries not SUCCEEDED`);
  if (pending.overdue_expiries > 0) violations.push(`${pending.overdue_expiries} reward(s) still open more than ${EXPIRY_GRACE_S} s past expiresAt`);

  // Every key a client saw succeed has exactly that reward, under its key, in its account.
  const rows = await db.query(`SELECT id, account_id, external_id FROM rewards WHERE external_id IS NOT NULL`);
  const byKey = new Map(rows.map((r) => [`${r.account_id} ${r.external_id}`, r.id]));
  let seen = 0;
  for (const [key, entry] of knowledge.createKeys) {
    for (const id of entry.rewardIds) {
      seen += 1;
      if (byKey.get(`${entry.accountId} ${key}`) !== id) violations.push(`key ${key}: the client got ${id}, the database has ${byKey.get(`${entry.accountId} ${key}`) ?? 'none'}`);
    }
  }
  facts.confirmedRewards = seen;
  facts.unconfirmedKeys = [...knowledge.createKeys.values()].filter((e) => e.rewardIds.size === 0).length;

  // A pick key makes at most one card: no reward has more cards than pick keys were used on it.
  const picksPerReward = new Map();
  for (const { rewardId } of knowledge.pickKeys.values()) picksPerReward.set(rewardId, (picksPerReward.get(rewardId) || 0) + 1);
  const choiceCards = await db.query(
    `SELECT c.reward_id, count(*)::int AS n FROM reward_cards c JOIN rewards r ON r.id = c.reward_id
      WHERE r.type = 'CHOICE' GROUP BY c.reward_id`,
  );
  for (const c of choiceCards) {
    const keys = picksPerReward.get(c.reward_id) || 0;
    if (c.n > keys) violations.push(`reward ${c.reward_id} has ${c.n} cards from ${keys} pick key(s)`);
  }

  // Every event reached each endpoint of its account (all endpoints subscribe to every kind).
  let expected = 0;
  let delivered = 0;
  let copies = 0;
  const missing = [];
  for (const ep of endpoints) {
    const events = await db.query(`SELECT id FROM events WHERE account_id = $1 AND created_at >= $2`, [ep.accountId, ep.createdAt]);
    for (const e of events) {
      expected += 1;
      const n = receiver.received.get(`${ep.path} ${e.id}`) || 0;
      if (n > 0) {
        delivered += 1;
        copies += n;
      } else if (missing.length < 5) missing.push(e.id);
    }
  }
  if (delivered < expected) violations.push(`${expected - delivered} of ${expected} event deliveries never reached the receiver (e.g. ${missing.join(', ')})`);
  if (receiver.badSignatures.length > 0) violations.push(`${receiver.badSignatures.length} webhook deliveries with a bad signature`);
  facts.eventDeliveries = expected;
  facts.duplicateRate = delivered ? (copies - delivered) / delivered : 0;
  facts.receiverRefusedOnPurpose = receiver.refused;

  // Every e-mail job was received by the sink for its recipient (at least once).
  const mails = await db.query(
    `SELECT lower(r.recipient_email) AS email, count(*)::int AS n FROM mail_jobs j JOIN rewards r ON r.id = j.reward_id
      WHERE j.status = 'SENT' GROUP BY 1`,
  );
  let short = 0;
  for (const m of mails) if ((sink.byRecipient.get(m.email) || 0) < m.n) short += m.n - (sink.byRecipient.get(m.email) || 0);
  if (short > 0) violations.push(`${short} e-mail(s) marked SENT never reached the SMTP sink`);
  facts.emailsReceived = sink.total;
  return { violations, facts };
}

module.exports = { Db, backlogBefore, backlogTotal, waitDrained, snapshotChecks, finalChecks };
