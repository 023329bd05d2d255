'use strict';
// The database's ceiling for reward creation: the captured statements of one creation replayed
// straight through `pg` at the bench's concurrency, with fresh per-request values each time
// (bench/replay-values.js), while the service is paused. A replay that collides with an earlier
// one (unique violation) or that writes nothing (its idempotency claim skipped) stops the bench:
// counted as throughput, either would inflate the ceiling.
const { Client } = require('pg');
const { performance } = require('node:perf_hooks');
const { DATABASE_URL, APPLICATION_NAME, CONNECTIONS, DURATION, WARMUP, log } = require('./config');
const { drain, invariants, rewardCount } = require('./database');
const { measured } = require('./measure');
const { round, stats } = require('./numbers');

const UNIQUE_VIOLATION = '23505';

function collision(name, statement, error) {
  return new Error(
    `ceiling replay ${name}: statement ${statement + 1} of the captured creation violated ${error.constraint || 'a unique constraint'}` +
      `${error.detail ? ` (${error.detail})` : ''}: a value that must differ per request was replayed as captured. ` +
      'The replay cannot count this as throughput; bench/replay-values.js must learn to renew that value.',
  );
}

/**
 * One ceiling phase: drains the service's backlog, pauses the service, replays the plan over
 * `accountIds` (warm-up, then measured), takes the replayed rows out of the service's background
 * queues, and resumes it. Returns the phase result (also filed in results.phases[name]).
 */
async function ceilingPhase(ctx, name, plan, valuesFor, accountIds) {
  const { db, service, results } = ctx;
  await drain(db);
  if (service) await service.pause(db);
  try {
    const r = await replay(ctx, name, plan, valuesFor, accountIds);
    await setAsideReplayedWork(db, r.mark);
    delete r.mark;
    r.invariants = await invariants(db, name, accountIds);
    results.invariants.push(r.invariants);
    return r;
  } finally {
    if (service) service.resume();
  }
}

async function replay(ctx, name, plan, valuesFor, accountIds) {
  const { db } = ctx;
  const clients = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = new Client({ connectionString: DATABASE_URL, application_name: APPLICATION_NAME });
    await c.connect();
    clients.push(c);
  }
  const before = await rewardCount(db, accountIds);
  const mark = (await db.query('SELECT clock_timestamp() AS at, COALESCE(max(seq), 0)::bigint AS seq FROM events')).rows[0];
  let turn = 0;
  let failure = null;
  const run = async (seconds, latencies, counts) => {
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      clients.map(async (c) => {
        while (Date.now() < end && !failure) {
          const values = valuesFor(accountIds[turn++ % accountIds.length]);
          const t = performance.now();
          let i = 0;
          try {
            for (; i < plan.statements.length; i++) await c.query(plan.statements[i].text, values[i]);
            latencies.push(performance.now() - t);
            counts.ok++;
          } catch (error) {
            await c.query('ROLLBACK').catch(() => {});
            if (error.code === UNIQUE_VIOLATION) {
              failure = failure || collision(name, i, error);
              return;
            }
            counts.errors++;
            counts.lastError = String(error.message);
          }
        }
      }),
    );
    if (failure) throw failure;
  };
  const warm = { ok: 0, errors: 0 };
  const latencies = [];
  const counts = { ok: 0, errors: 0 };
  try {
    await run(WARMUP, [], warm);
    const t0 = performance.now();
    const r = await measured(
      ctx,
      name,
      async () => {
        await run(DURATION, latencies, counts);
        const s = stats(latencies);
        const elapsed = (performance.now() - t0) / 1000;
        return { rps: round(counts.ok / elapsed, 1), ok: counts.ok, p50: s.p50, p99: s.p99, errors: counts.errors, lastError: counts.lastError, connections: CONNECTIONS, statementsPerCreate: plan.statements.length };
      },
      { quiesce: false },
    );
    // Every replay that succeeded must have written its reward: one that wrote nothing (e.g. an
    // idempotency claim that found its key taken, which the statement skips without an error) did no work.
    const created = (await rewardCount(db, accountIds)) - before;
    if (created !== warm.ok + counts.ok) {
      throw new Error(
        `ceiling replay ${name}: ${warm.ok + counts.ok} replays succeeded but ${created} rewards were written; the captured ` +
          'creation skipped its writes (a per-request value replayed as captured?), so the ceiling would count work that was not done.',
      );
    }
    r.mark = mark;
    return r;
  } finally {
    for (const c of clients) await c.end().catch(() => {});
  }
}

/**
 * The replayed rewards' e-mail jobs and outbox events were never seen by the service (its queue
 * jobs are not replayed): without this, the resumed service would pick them up as orphans and send
 * thousands of e-mails and events during the next measured phase. Marked as failed / dispatched, so
 * they stay visible as what they are.
 */
async function setAsideReplayedWork(db, mark) {
  const mails = await db.query(
    `UPDATE mail_jobs SET status = 'FAILED', last_error = 'bench: written by the ceiling replay, not to be sent'
      WHERE status = 'PENDING' AND created_at >= $1`,
    [mark.at],
  );
  const events = await db.query('UPDATE events SET dispatched_at = clock_timestamp() WHERE dispatched_at IS NULL AND seq > $1', [mark.seq]);
  log(`set aside the replay's ${mails.rowCount} e-mail jobs and ${events.rowCount} events`);
}

module.exports = { ceilingPhase };
