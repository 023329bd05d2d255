import Papa from 'papaparse';
import { loadConfig, prepareInfrastructure, ReadRouting, Sweepers } from '@app/core';
import { REPORT_BUILD_SWEEP } from '@app/reports';
import { PrivatePgBouncer } from './private-pgbouncer';
import { PrivateReplication } from './private-replica';
import { choiceReward, fund } from './rewards';
import { eventually } from './processes';
import { SeededMerchant, seedMerchant, startTestApp, TestApp, TestWorker } from './test-app';
import { clockOverride, TestClock } from './test-clock';

/** What /health/ready answers, as far as the replica tests read it. */
export interface ReadyBody {
  status: string;
  readReplica?: { status: string; lagMs: number | null };
}

/**
 * The API on a private primary and a real streaming replica of it (PrivateReplication), DATABASE_READ_URL
 * naming the replica (docs/scaling.md, Read replica), with one merchant funded: what the read-replica files
 * share. The injected clock is frozen: lag is measured on it, so the replica lags only when a test moves it.
 *
 * With `pooled`, each server sits behind a PgBouncer of its own in transaction mode, as production would
 * run it: DATABASE_URL through the primary's (DATABASE_DIRECT_URL straight to the primary), DATABASE_READ_URL
 * through the replica's. Both log in as POOLED_USER; its session defaults, set on the primary, reach the
 * replica with the base backup.
 */
export class ReplicatedService {
  readonly clock = new TestClock();
  readonly cluster = new PrivateReplication();
  primaryPooler: PrivatePgBouncer | null = null;
  replicaPooler: PrivatePgBouncer | null = null;
  t!: TestApp;
  m!: SeededMerchant;
  /** The environment the API was started with (another app on the same servers starts from it). */
  env: Record<string, string> = {};

  constructor(
    private readonly options: {
      maxLagMs: number;
      waitMs: number;
      /** READ_REPLICA_QUERY_TIMEOUT_MS, when not the default. */
      queryTimeoutMs?: number;
      /** Each server behind a PgBouncer of its own; `settings` are more lines for the replica's. */
      pooled?: { replicaSettings?: Record<string, string | number> };
    },
  ) {}

  async start(): Promise<this> {
    let env: Record<string, string> = {};
    await this.cluster.start(async (primaryUrl) => {
      env = { DATABASE_URL: primaryUrl, READ_REPLICA_MAX_LAG_MS: String(this.options.maxLagMs), READ_REPLICA_WAIT_MS: String(this.options.waitMs) };
      if (this.options.queryTimeoutMs) env.READ_REPLICA_QUERY_TIMEOUT_MS = String(this.options.queryTimeoutMs);
      // The roles and the migrations, straight to the primary.
      await prepareInfrastructure(loadConfig({ ...process.env, ...env }));
      if (!this.options.pooled) return;
      // The pooled login (it needs the runtime role made above), before the base backup so that the replica has it.
      this.primaryPooler = await new PrivatePgBouncer({ server: { host: '127.0.0.1', port: this.cluster.primary.port } }).start();
      env = { ...env, DATABASE_URL: this.primaryPooler.pooled(primaryUrl), DATABASE_DIRECT_URL: primaryUrl };
      // What a start through a pooler does: the pooled login's defaults in the database, then the check through the pooler.
      await prepareInfrastructure(loadConfig({ ...process.env, ...env }));
    });
    if (this.options.pooled) {
      this.replicaPooler = await new PrivatePgBouncer({
        server: { host: '127.0.0.1', port: this.cluster.replica.port },
        settings: this.options.pooled.replicaSettings,
      }).start();
      env.DATABASE_READ_URL = this.replicaPooler.pooled(this.cluster.replica.url);
    } else {
      env.DATABASE_READ_URL = this.cluster.replica.url;
    }
    this.clock.freeze();
    this.env = env;
    this.t = await startTestApp({ env, overrides: [clockOverride(this.clock)] });
    this.m = await seedMerchant(this.t);
    await fund(this.t, this.m, 100_000);
    return this;
  }

  async close(): Promise<void> {
    await this.t?.close();
    await this.replicaPooler?.stop();
    await this.primaryPooler?.stop();
    await this.cluster.stop();
  }

  /** The API's read routing (its checks, its state). */
  reads(): ReadRouting {
    return this.t.app.get(ReadRouting);
  }

  /** A CHOICE reward sent by the merchant's full key: its id. */
  async send(valueCents: number): Promise<string> {
    const res = await this.t.api.as(this.m.key).post('/v1/rewards', choiceReward(valueCents));
    expect(res.status).toBe(201);
    return res.body.reward.id as string;
  }

  /** The ids of the first page of rewards, as `key` lists them. */
  async listIds(key: string): Promise<string[]> {
    const res = await this.t.api.as(key).get('/v1/rewards?page_size=100');
    expect(res.status).toBe(200);
    return (res.body.rewards as { id: string }[]).map((reward) => reward.id);
  }

  // Operator endpoints, outside the merchant API's contract: plain fetch.
  ready(): Promise<Response> {
    return fetch(`${this.t.baseUrl}/health/ready`);
  }

  async health(): Promise<ReadyBody> {
    return (await (await this.ready()).json()) as ReadyBody;
  }

  /** The sum of the /metrics lines matching `line` (0 when there is none). */
  async metric(line: RegExp): Promise<number> {
    const text = await (await fetch(`${this.t.baseUrl}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => line.test(l))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  }
}

/**
 * A rewards report requested with `key`, built by one run of `worker`'s report sweep, once COMPLETED, and
 * the rows of its downloaded CSV.
 */
export async function builtRewardsReport(t: TestApp, worker: TestWorker, key: string): Promise<{ report: { id: string; rowCount: number }; rows: Record<string, string>[] }> {
  const requested = await t.api.as(key).post('/v1/reports', { type: 'rewards' });
  expect(requested.status).toBe(202);
  await worker.app.get(Sweepers).run(REPORT_BUILD_SWEEP);
  const report = await eventually(async () => {
    const got = await t.api.as(key).get(`/v1/reports/${requested.body.report.id}`);
    return got.body.report.status === 'COMPLETED' && got.body.report;
  });
  const csv = await t.api.as(key).get(`/v1/reports/${report.id}/download`);
  return { report, rows: Papa.parse<Record<string, string>>(csv.text, { header: true, skipEmptyLines: true }).data };
}
