import { ReadRouting } from '@app/core';
import { RewardReports } from '@app/rewards';
import { DataSource } from 'typeorm';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { eventually } from '../support/processes';
import { builtRewardsReport, ReplicatedService } from '../support/read-replica';
import { SeededMerchant, startTestWorker, TestApp, TestWorker } from '../support/test-app';

const MAX_LAG_MS = 30_000;
/** READ_REPLICA_QUERY_TIMEOUT_MS here: a replica statement unanswered this long fails (30 s by default). */
const QUERY_TIMEOUT_MS = 8_000;

/**
 * Reads from a streaming replica (docs/scaling.md, Read replica): a private primary and a real hot
 * standby of it (pg_basebackup -R). The replica is made to fall behind by pausing its WAL replay, so
 * what a credential sees from it is exactly what the primary had before the pause.
 * test/foundation/read-replica-pooled.e2e-spec.ts runs the same service with each server behind a PgBouncer.
 */
describe('read replica (DATABASE_READ_URL)', () => {
  const service = new ReplicatedService({ maxLagMs: MAX_LAG_MS, waitMs: 100, queryTimeoutMs: QUERY_TIMEOUT_MS });
  const { clock, cluster } = service;
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;

  beforeAll(async () => {
    ({ t, m } = await service.start());
    // The worker side (its own checks of the replica, once a second) starts with the report test: until then
    // the replica's state and gauges are the API's alone.
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await service.close();
  });

  const reads = () => service.reads();
  const send = (valueCents: number) => service.send(valueCents);
  const listIds = (key: string) => service.listIds(key);
  const ready = () => service.ready();
  const health = () => service.health();
  const metric = (line: RegExp) => service.metric(line);

  it('lists come from the replica, and the credential that wrote reads its own writes while the replica is behind', async () => {
    await cluster.caughtUp();
    await reads().check();
    expect(await health()).toMatchObject({ status: 'ok', readReplica: { status: 'ok', lagMs: 0 } });

    const month = clock.now().toISOString().slice(0, 7);
    const toppedUp = async (key: string) => {
      const res = await t.api.as(key).get(`/v1/wallet/statements/${month}`);
      expect(res.status).toBe(200);
      return res.body.statement.topupCents as number;
    };
    const sentInChart = async (key: string) => {
      const res = await t.api.as(key).get('/v1/account/overview/daily?days=30');
      expect(res.status).toBe(200);
      return (res.body.series as { days: { sentCents: number }[] }[])[0].days.reduce((sum, day) => sum + day.sentCents, 0);
    };
    const [toppedBefore, sentBefore] = [await toppedUp(m.readKey), await sentInChart(m.readKey)];

    await cluster.pauseReplay();
    try {
      const id = await send(1_500);
      expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 5_000 })).status).toBe(201);
      // Another credential of the same account, which wrote nothing, reads the replica: not there yet.
      expect(await listIds(m.readKey)).not.toContain(id);
      // The writer's read waits up to READ_REPLICA_WAIT_MS for the replica, then reads the primary.
      expect(await listIds(m.key)).toContain(id);
      expect(await metric(/^database_reads_total\{target="primary",reason="not_replayed"\}/)).toBeGreaterThan(0);
      // The events list follows the same rule.
      const eventsAbout = async (key: string) => {
        const res = await t.api.as(key).get('/v1/events?type=reward.created&limit=100');
        expect(res.status).toBe(200);
        return (res.body.events as { data: unknown }[]).filter((event) => JSON.stringify(event.data).includes(id));
      };
      expect(await eventsAbout(m.readKey)).toHaveLength(0);
      expect(await eventsAbout(m.key)).toHaveLength(1);
      // And the month's statement and the Overview chart.
      expect(await toppedUp(m.readKey)).toBe(toppedBefore);
      expect(await toppedUp(m.key)).toBe(toppedBefore + 5_000);
      expect(await sentInChart(m.readKey)).toBe(sentBefore);
      expect(await sentInChart(m.key)).toBe(sentBefore + 1_500);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    // Caught up: the other credential sees it too, from the replica.
    const replicaReads = await metric(/^database_reads_total\{target="replica",reason="replica"\}/);
    expect(await listIds(m.readKey)).toHaveLength((await listIds(m.key)).length);
    expect(await metric(/^database_reads_total\{target="replica",reason="replica"\}/)).toBeGreaterThan(replicaReads);
  });

  it('a replica lagging past READ_REPLICA_MAX_LAG_MS is not read; /health/ready and /metrics say so until it catches up', async () => {
    await cluster.pauseReplay();
    try {
      const id = await send(1_200);
      await reads().check(); // the primary's position is sampled: the replica has not replayed it
      clock.advance(MAX_LAG_MS + 1_000);
      await reads().check();
      const lagging = await health();
      expect(lagging.status).toBe('degraded');
      expect(lagging.readReplica).toEqual({ status: 'lagging', lagMs: MAX_LAG_MS + 1_000 });
      expect(await metric(/^database_read_replica_up /)).toBe(0);
      expect(await metric(/^database_read_replica_lag_seconds /)).toBe((MAX_LAG_MS + 1_000) / 1000);
      // Every read goes to the primary meanwhile, also another credential's: it sees the new reward.
      expect(await listIds(m.readKey)).toContain(id);
      expect((await ready()).status).toBe(200);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await reads().check();
    expect(await health()).toMatchObject({ status: 'ok', readReplica: { status: 'ok', lagMs: 0 } });
    expect(await metric(/^database_read_replica_up /)).toBe(1);
  });

  it('a report read while the replica is killed between two batches carries on from the primary: every row once', async () => {
    const sent = [await send(100), await send(200), await send(300), await send(400), await send(500)];
    await cluster.caughtUp();
    await reads().check();
    // The report's rows as the worker reads them, two rewards a batch, newest first.
    worker = await startTestWorker(t);
    const workerReads = worker.app.get(ReadRouting);
    await workerReads.check();
    const read = await workerReads.reader();
    const filters = { createdGte: new Date(Date.now() - 3_600_000).toISOString(), createdLt: new Date(Date.now() + 3_600_000).toISOString() };
    const batches = worker.app.get(RewardReports).rewardRows(read, m.accountId, filters, 2);
    const seen: string[] = [];
    // The batch after the kill fails on the replica and is read from the primary (`failed_over`), unless a check of
    // the worker's own found the replica down first (`down`): either way, from the primary.
    const movedToPrimary = async () =>
      (await metric(/^database_reads_total\{target="primary",reason="failed_over"\}/)) + (await metric(/^database_reads_total\{target="primary",reason="down"\}/));
    const moved = await movedToPrimary();
    let first = true;
    for await (const batch of batches) {
      for (const row of batch) seen.push(row[0] as string);
      if (first) {
        first = false;
        await cluster.replica.crash();
      }
    }
    expect(seen).toEqual(expect.arrayContaining(sent));
    expect(new Set(seen).size).toBe(seen.length);
    const all = await listIds(m.key);
    expect(seen).toEqual(all);
    expect(await movedToPrimary()).toBeGreaterThan(moved);

    // The replica is down: lists still answer, from the primary, and readiness says degraded, not unavailable.
    expect(await listIds(m.readKey)).toEqual(all);
    await reads().check();
    const res = await ready();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'degraded', readReplica: { status: 'down', lagMs: null } });

    // A whole report requested and built with the replica down completes from the primary. (Its range ends at
    // the request by the clock, which stamped the rewards: a second on, every one of them is inside it.)
    clock.advance(1_000);
    const { report, rows } = await builtRewardsReport(t, worker, m.readKey);
    expect(report.rowCount).toBe(all.length);
    expect(rows.map((row) => row.id)).toEqual(all);

    // Back up: it catches up and serves again.
    await cluster.replica.start();
    await cluster.caughtUp();
    await eventually(async () => {
      await reads().check();
      return (await health()).readReplica?.status === 'ok';
    });
  });

  it('a replica that freezes in the middle of a read: the read is run again on the primary after the timeout, its connection closed without a ROLLBACK', async () => {
    await cluster.caughtUp();
    await reads().check();
    expect((await health()).readReplica?.status).toBe('ok');
    const read = await reads().reader();
    const moved = await metric(/^database_reads_total\{target="primary",reason="failed_over"\}/);
    const onPrimary = Number((await service.t.app.get(DataSource).query('SELECT count(*)::int AS n FROM rewards'))[0].n);
    const stopped: number[] = [];
    const ran: string[] = [];
    // What the service sends through its query runners during the read (the calls are passed through unchanged).
    const sent: { runner: unknown; sql: string }[] = [];
    const query = PostgresQueryRunner.prototype.query;
    const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query').mockImplementation(function (this: PostgresQueryRunner, ...args: Parameters<typeof query>) {
      sent.push({ runner: this, sql: args[0] });
      return query.apply(this, args);
    });
    let onReplica: unknown = null;
    let frozenAt = 0;
    try {
      const count = await read(async (manager) => {
        const [{ recovery }] = (await manager.query('SELECT pg_is_in_recovery() AS recovery')) as { recovery: boolean }[];
        ran.push(recovery ? 'replica' : 'primary');
        // The transaction is open on the replica, and its next statement will get no answer.
        if (recovery) {
          onReplica = manager.queryRunner;
          cluster.freeze(cluster.replica, stopped);
          frozenAt = performance.now();
        }
        return Number(((await manager.query('SELECT count(*)::int AS n FROM rewards')) as { n: number }[])[0].n);
      });
      const waited = performance.now() - frozenAt;
      expect(ran).toEqual(['replica', 'primary']);
      expect(count).toBe(onPrimary);
      expect(await metric(/^database_reads_total\{target="primary",reason="failed_over"\}/)).toBe(moved + 1);
      // The statement that got no answer was the last sent on the replica: no ROLLBACK, which would have queued
      // behind it and failed only after a timeout of its own, before the read could run on the primary.
      expect(sent.filter((call) => call.runner === onReplica).map((call) => call.sql)).toEqual([
        'SELECT pg_is_in_recovery() AS recovery',
        'SELECT count(*)::int AS n FROM rewards',
      ]);
      expect(waited).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 100);
    } finally {
      spy.mockRestore();
      cluster.thaw(stopped);
    }
    // Thawed, it serves again.
    await eventually(async () => {
      await reads().check();
      return (await health()).readReplica?.status === 'ok';
    });
  });
});
