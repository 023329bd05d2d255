import { Client } from 'pg';
import { ReadRouting } from '@app/core';
import { RewardReports } from '@app/rewards';
import { POOLED_USER, PrivatePgBouncer } from '../support/private-pgbouncer';
import { eventually } from '../support/processes';
import { builtRewardsReport, ReplicatedService } from '../support/read-replica';
import { choiceReward } from '../support/rewards';
import { TcpProxy } from '../support/tcp-proxy';
import { SeededMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { clockOverride } from '../support/test-clock';

const MAX_LAG_MS = 30_000;
const WAIT_MS = 2_000;

/**
 * The read replica as production would run it (docs/scaling.md, Read replica): the primary and its streaming
 * replica each behind a PgBouncer of its own in transaction mode, DATABASE_URL through the primary's,
 * DATABASE_READ_URL through the replica's. Each transaction of a replica read may meet another server session
 * than the one before it, and a replica that stops leaves its pooler accepting connections.
 */
describe('read replica behind PgBouncer in transaction mode', () => {
  // server_login_retry: the pooler tries the replica again a second after it could not reach it (15 s by default).
  const service = new ReplicatedService({ maxLagMs: MAX_LAG_MS, waitMs: WAIT_MS, pooled: { replicaSettings: { server_login_retry: 1 } } });
  const { clock, cluster } = service;
  let t: TestApp;
  let m: SeededMerchant;
  let worker: TestWorker | undefined;

  beforeAll(async () => {
    ({ t, m } = await service.start());
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await service.close();
  });

  const reads = () => service.reads();
  const fromReplica = () => service.metric(/^database_reads_total\{target="replica",reason="replica"\}/);
  const notReplayed = () => service.metric(/^database_reads_total\{target="primary",reason="not_replayed"\}/);

  it('lists come from the replica through its pooler; the credential that wrote reads its write there once replayed, else from the primary', async () => {
    expect(t.config.databaseReadUrl).toContain(`:${service.replicaPooler!.port}/`);
    expect(t.config.databaseUrl).toContain(`:${service.primaryPooler!.port}/`);
    await cluster.caughtUp();
    await reads().check();
    expect(await service.health()).toMatchObject({ status: 'ok', readReplica: { status: 'ok', lagMs: 0 } });

    // Replayed already: the writer's list is the replica's (the replay position asked through the pooler).
    const replayed = await service.send(700);
    await cluster.caughtUp();
    const [replicaBefore, notReplayedBefore] = [await fromReplica(), await notReplayed()];
    expect(await service.listIds(m.key)).toContain(replayed);
    expect(await fromReplica()).toBe(replicaBefore + 1);
    expect(await notReplayed()).toBe(notReplayedBefore);

    await cluster.pauseReplay();
    let id: string;
    try {
      id = await service.send(1_500);
      // Another credential, which wrote nothing, reads the replica: not there yet.
      expect(await service.listIds(m.readKey)).not.toContain(id);
      // The writer waits up to READ_REPLICA_WAIT_MS for the replica, then reads the primary.
      expect(await service.listIds(m.key)).toContain(id);
      expect(await notReplayed()).toBe(notReplayedBefore + 1);

      // The lag is measured through the pooler too: past READ_REPLICA_MAX_LAG_MS everyone reads the primary.
      await reads().check();
      clock.advance(MAX_LAG_MS + 1_000);
      await reads().check();
      expect(await service.health()).toMatchObject({ status: 'degraded', readReplica: { status: 'lagging', lagMs: MAX_LAG_MS + 1_000 } });
      expect(await service.listIds(m.readKey)).toContain(id);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await reads().check();
    expect(await service.health()).toMatchObject({ status: 'ok', readReplica: { status: 'ok', lagMs: 0 } });
    const replicaNow = await fromReplica();
    expect(await service.listIds(m.readKey)).toContain(id);
    expect(await fromReplica()).toBe(replicaNow + 1);
  });

  it('with two replicas behind one pooler, the credential that wrote reads its write on a replica that has replayed it', async () => {
    // A TCP balancer in front of the replica and a second one, and a pooler on it that uses its two server sessions
    // in turn (server_round_robin, as PgBouncer advises for several servers behind one address): a message on one
    // replica, the next on the other. The first replica stops replaying; the second keeps up.
    const second = await cluster.standby('replica2');
    const balancer = await new TcpProxy('127.0.0.1', cluster.replica.port).roundRobin([cluster.replica.port, second.port]).start();
    const pooler = await new PrivatePgBouncer({ server: { host: '127.0.0.1', port: balancer.port }, poolSize: 2, settings: { min_pool_size: 2, server_round_robin: 1 } }).start();
    const other = await startTestApp({ env: { ...service.env, DATABASE_READ_URL: pooler.pooled(cluster.replica.url) }, overrides: [clockOverride(clock)] });
    try {
      await cluster.caughtUp(second);
      await other.app.get(ReadRouting).check();
      // Both of this pooler's server sessions open, one on each replica.
      const backendsOn = async (url: string) => {
        const admin = new Client({ connectionString: url });
        await admin.connect();
        try {
          return (await admin.query(`SELECT pid FROM pg_stat_activity WHERE usename = $1`, [POOLED_USER])).rows.map((row) => row.pid as number);
        } finally {
          await admin.end();
        }
      };
      await eventually(async () => {
        await Promise.all(Array.from({ length: 4 }, () => other.api.as(m.readKey).get('/v1/rewards')));
        const sessions = new Set((await pooler.show<{ database: string; remote_pid: string }>('SERVERS')).filter((s) => s.database === 'rewards').map((s) => Number(s.remote_pid)));
        const onFirst = (await backendsOn(cluster.replica.url)).some((pid) => sessions.has(pid));
        return onFirst && (await backendsOn(second.url)).some((pid) => sessions.has(pid));
      });

      await cluster.pauseReplay(cluster.replica);
      try {
        const replicaBefore = await fromReplica();
        for (let i = 0; i < 3; i++) {
          const created = await other.api.as(m.key).post('/v1/rewards', choiceReward(100));
          expect(created.status).toBe(201);
          // The replay check and the read's BEGIN go in one message: the read runs where the check was answered.
          const listed = await other.api.as(m.key).get('/v1/rewards?page_size=100');
          expect((listed.body.rewards as { id: string }[]).map((reward) => reward.id)).toContain(created.body.reward.id);
        }
        // From the replica that had replayed them, not from the primary.
        expect(await fromReplica()).toBe(replicaBefore + 3);
      } finally {
        await cluster.resumeReplay(cluster.replica);
      }
    } finally {
      await other.close();
      await pooler.stop();
      await balancer.cut();
    }
  });

  it('the replica stopped behind its running pooler: reads go to the primary within seconds, /health/ready says down; started again, it serves', async () => {
    await cluster.caughtUp();
    await reads().check();
    const all = await service.listIds(m.readKey);

    await cluster.replica.stop();
    // The pooler still takes the service's statements and holds them, waiting for a server session it cannot open.
    // The API's checks have not found the replica down yet (a check waits 5 s for an answer): this read tries it.
    expect(reads().health()?.status).toBe('ok');
    // It waits 2 s for a replica session, not the 30 s a statement on the replica may take, and reads the primary.
    const primaryReads = () => service.metric(/^database_reads_total\{target="primary"/);
    const [started, primaryBefore] = [performance.now(), await primaryReads()];
    expect(await service.listIds(m.readKey)).toEqual(all);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await primaryReads()).toBe(primaryBefore + 1);

    await reads().check();
    const res = await service.ready();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'degraded', readReplica: { status: 'down', lagMs: null } });
    expect(await service.metric(/^database_read_replica_up /)).toBe(0);
    // Down: reads go to the primary at once.
    const again = performance.now();
    expect(await service.listIds(m.readKey)).toEqual(all);
    expect(performance.now() - again).toBeLessThan(1_000);

    await cluster.replica.start();
    await cluster.caughtUp();
    await eventually(async () => {
      await reads().check();
      return (await service.health()).readReplica?.status === 'ok';
    });
    // The statement that went unanswered was not left queued at the pooler to run now that the replica is back: its
    // connection was closed, not given back to the service's pool. Its BEGIN would have left a session inside a
    // transaction, which the next read on that connection would have joined.
    const admin = new Client({ connectionString: cluster.replica.url });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND state LIKE 'idle in transaction%'`, [POOLED_USER]);
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await admin.end();
    }
    const replicaNow = await fromReplica();
    expect(await service.listIds(m.readKey)).toEqual(all);
    expect(await fromReplica()).toBe(replicaNow + 1);
  }, 60_000);

  it('a report is read from the replica through its pooler, one short transaction a batch', async () => {
    const sent = [await service.send(100), await service.send(200), await service.send(300)];
    await cluster.caughtUp();
    const all = await service.listIds(m.readKey);
    worker = await startTestWorker(t);
    const workerReads = worker.app.get(ReadRouting);
    await workerReads.check();

    // What the builder does (ReportBuilder.build): a reader at what the primary has committed now, then the batches.
    const read = await workerReads.reader();
    await cluster.caughtUp();
    await cluster.pauseReplay();
    try {
      // Cancelled on the primary after the replica stopped replaying: a batch from the replica still has it sent.
      expect((await t.api.as(m.key).post(`/v1/rewards/${sent[0]}/cancel`)).status).toBe(200);
      const replicaBefore = await fromReplica();
      const filters = { createdGte: new Date(Date.now() - 3_600_000).toISOString(), createdLt: new Date(Date.now() + 3_600_000).toISOString() };
      const rows: unknown[][] = [];
      for await (const batch of worker.app.get(RewardReports).rewardRows(read, m.accountId, filters, 2)) for (const row of batch) rows.push(row);
      expect(rows.map((row) => row[0])).toEqual(all);
      expect(rows.find((row) => row[0] === sent[0])?.[2]).toBe('SENT');
      // Every read of the walk from the replica: one a batch of 2, and one more that ends it (it finds fewer than 2, or none).
      expect(await fromReplica()).toBe(replicaBefore + Math.floor(all.length / 2) + 1);
    } finally {
      await cluster.resumeReplay();
    }

    // A whole report, requested, built by the worker (rows from the replica's pooler, its pieces through the
    // primary's) and downloaded. (Its range ends at the request by the clock, which stamped the rewards: a second
    // on, every one of them is inside it.)
    clock.advance(1_000);
    await cluster.caughtUp();
    await workerReads.check();
    const replicaBefore = await fromReplica();
    const { report, rows: csvRows } = await builtRewardsReport(t, worker, m.readKey);
    expect(report.rowCount).toBe(all.length);
    expect(csvRows.map((row) => row.id)).toEqual(all);
    expect(csvRows.find((row) => row.id === sent[0])?.status).toBe('CANCELED');
    expect(await fromReplica()).toBeGreaterThan(replicaBefore);
  });
});
