import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HeldLease, LeaseHeartbeat, queryRows, RowLease, Statement } from '@app/core';
import { adminDataSource } from '../support/database-admin';

/**
 * The row lease (libs/core/src/database/row-lease.ts; docs/operations.md, Leases) on a table of its
 * own, on the real database: a row is worked on by one holder at a time, the holder's attempt is
 * the key to renew or release it, and a lease that is not renewed runs out by itself. Leases are
 * "run out" here by moving their column into the past, never by waiting.
 */
describe('row lease', () => {
  let db: DataSource;

  // Like mail_jobs: the column says when the lease runs out. Like webhook_deliveries, `due` moves with it.
  const until = new RowLease({
    table: 'lease_probe',
    alias: 'p',
    attempt: 'attempts',
    lease: { until: 'leased_until' },
    pending: (p) => `${p}.status = 'PENDING'`,
    ms: 10_000,
    alsoUntil: ['due_at'],
  });
  // Like reward_cards: the column says when the lease was taken.
  const since = new RowLease({
    table: 'lease_probe',
    alias: 'p',
    attempt: 'attempts',
    lease: { since: 'taken_at' },
    pending: (p) => `${p}.status = 'PENDING'`,
    ms: 15_000,
  });

  const run = async <T = Record<string, unknown>>(render: (statement: Statement) => string, manager = db.manager): Promise<T[]> => {
    const statement = new Statement();
    const sql = render(statement);
    return queryRows<T>(manager, sql, statement.params);
  };
  const takeOne = (lease: RowLease, id: string) => run<{ id: string; attempts: number }>((s) => lease.takeOne(s, { id, returning: 'id, attempts' }));
  const row = async (id: string) =>
    (
      await db.query(
        `SELECT attempts, leased_until IS NOT NULL AS leased, round(extract(epoch FROM leased_until - clock_timestamp()))::int AS left_s,
                abs(extract(epoch FROM due_at - leased_until)) < 0.1 AS due_with_lease, taken_at IS NOT NULL AS taken, note
           FROM lease_probe WHERE id = $1`,
        [id],
      )
    )[0];
  const runOut = (id: string) =>
    db.query(`UPDATE lease_probe SET leased_until = clock_timestamp() - interval '1 millisecond', taken_at = clock_timestamp() - interval '15001 milliseconds' WHERE id = $1 AND (leased_until IS NOT NULL OR taken_at IS NOT NULL)`, [id]);

  beforeAll(async () => {
    // The file's own database (docs/testing.md, A database per test file): the probe table is this file's.
    db = await adminDataSource(process.env.DATABASE_URL!);
    await db.query(`CREATE TABLE lease_probe (
      id text PRIMARY KEY, status text NOT NULL DEFAULT 'PENDING', attempts int NOT NULL DEFAULT 0,
      leased_until timestamptz, taken_at timestamptz, due_at timestamptz NOT NULL DEFAULT clock_timestamp(), note text)`);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  beforeEach(() => db.query(`TRUNCATE lease_probe`));

  it('takes a row once while its lease lives, again with the next attempt once it runs out, never a settled one', async () => {
    await db.query(`INSERT INTO lease_probe (id) VALUES ('a'), ('settled')`);
    await db.query(`UPDATE lease_probe SET status = 'DONE' WHERE id = 'settled'`);
    expect(await takeOne(until, 'a')).toEqual([{ id: 'a', attempts: 1 }]);
    expect(await row('a')).toMatchObject({ attempts: 1, leased: true, left_s: 10, due_with_lease: true });
    expect(await takeOne(until, 'a')).toEqual([]);
    await runOut('a');
    expect(await takeOne(until, 'a')).toEqual([{ id: 'a', attempts: 2 }]);
    expect(await takeOne(until, 'settled')).toEqual([]);
  });

  it('renews and releases only the attempt that holds the lease, and only while pending', async () => {
    await db.query(`INSERT INTO lease_probe (id) VALUES ('a'), ('b')`);
    await takeOne(until, 'a');
    await runOut('a');
    await takeOne(until, 'a'); // another holder took it over: attempt 2
    await runOut('a');
    const first: HeldLease[] = [{ id: 'a', attempt: 1 }];
    expect(await run((s) => until.renew(s, first))).toEqual([]);
    expect(await run((s) => until.release(s, first, { set: { note: s.param('seen by the run taken over') } }))).toEqual([]);
    expect(await row('a')).toMatchObject({ attempts: 2, leased: true, left_s: 0, note: null });
    expect(await run((s) => until.renew(s, [{ id: 'a', attempt: 2 }]))).toEqual([{ id: 'a' }]);
    expect(await row('a')).toMatchObject({ attempts: 2, leased: true, left_s: 10, due_with_lease: true });
    // A release writes what it is given (why the try failed) with it.
    expect(await run((s) => until.release(s, [{ id: 'a', attempt: 2 }], { set: { note: s.param('try again later') } }))).toEqual([{ id: 'a' }]);
    expect(await row('a')).toMatchObject({ attempts: 2, leased: false, note: 'try again later' });
    // An ended lease is not revived by a late renewal, and a settled row is not renewed.
    expect(await run((s) => until.renew(s, [{ id: 'a', attempt: 2 }]))).toEqual([]);
    await takeOne(until, 'b');
    await db.query(`UPDATE lease_probe SET status = 'DONE' WHERE id = 'b'`);
    expect(await run((s) => until.renew(s, [{ id: 'b', attempt: 1 }]))).toEqual([]);
  });

  it('takes a batch in order up to its limit, skipping rows under a live lease and rows another transaction has locked', async () => {
    await db.query(`INSERT INTO lease_probe (id, due_at) SELECT 'r' || i, clock_timestamp() - i * interval '1 second' FROM generate_series(1, 6) AS i`);
    await takeOne(until, 'r6'); // the oldest, under a live lease
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT 1 FROM lease_probe WHERE id = 'r5' FOR UPDATE`);
      const batch = await run<{ id: string; attempts: number }>((s) =>
        until.takeBatch(s, {
          where: (p) => `${p}.due_at <= clock_timestamp()`,
          orderBy: (p) => `${p}.due_at`,
          limit: 3,
          set: { note: `'taken'` },
          returning: 'p.id, p.attempts, p.note',
        }),
      );
      expect(batch.map((r) => r.id).sort()).toEqual(['r2', 'r3', 'r4']); // the three oldest left: RETURNING has no order
      expect(batch.every((r) => r.attempts === 1)).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await row('r4')).toMatchObject({ leased: true, due_with_lease: true });
  });

  it('a lease that records when it was taken runs out `ms` later, and the sweeper query lists only run-out leases', async () => {
    await db.query(`INSERT INTO lease_probe (id) VALUES ('c'), ('d')`);
    expect(await takeOne(since, 'c')).toEqual([{ id: 'c', attempts: 1 }]);
    await takeOne(since, 'd');
    expect(await row('c')).toMatchObject({ taken: true, leased: false });
    expect(await takeOne(since, 'c')).toEqual([]);
    expect(await run((s) => since.expiredRows(s, { limit: 10 }))).toEqual([]);
    await runOut('c');
    expect(await run((s) => since.expiredRows(s, { limit: 10 }))).toEqual([{ id: 'c', attempt: 1 }]);
    expect(await takeOne(since, 'c')).toEqual([{ id: 'c', attempts: 2 }]);
  });

  it('the heartbeat renews, in one statement, only the held leases old enough, and none once dropped', async () => {
    await db.query(`INSERT INTO lease_probe (id) VALUES ('old'), ('fresh'), ('gone'), ('retaken')`);
    for (const id of ['old', 'fresh', 'gone', 'retaken']) await takeOne(until, id);
    await runOut('retaken');
    await takeOne(until, 'retaken'); // this process took it again: attempt 2
    await db.query(`UPDATE lease_probe SET leased_until = clock_timestamp() + interval '2 seconds'`);
    const heartbeat = new LeaseHeartbeat(until, db.manager, { renewAfterMs: 3_000, everyMs: 1_000, logger: new Logger('test'), what: 'probe' });
    heartbeat.hold('old', 1, Date.now() - 3_500);
    heartbeat.hold('fresh', 1, Date.now());
    heartbeat.hold('gone', 1, Date.now() - 3_500);
    heartbeat.hold('retaken', 2, Date.now() - 3_500);
    heartbeat.drop('gone');
    // The first attempt's work ends after the second took the row: the second keeps its renewals.
    heartbeat.drop('retaken', 1);
    await heartbeat.renewDue();
    expect(await row('old')).toMatchObject({ left_s: 10 });
    expect(await row('fresh')).toMatchObject({ left_s: 2 });
    expect(await row('gone')).toMatchObject({ left_s: 2 });
    expect(await row('retaken')).toMatchObject({ attempts: 2, left_s: 10 });
    // Just renewed: not again until it is old enough.
    await db.query(`UPDATE lease_probe SET leased_until = clock_timestamp() + interval '2 seconds' WHERE id = 'old'`);
    await heartbeat.renewDue();
    expect(await row('old')).toMatchObject({ left_s: 2 });
    await heartbeat.stop();
  });
});
