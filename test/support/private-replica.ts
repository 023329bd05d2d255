import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { eventually } from './processes';

// The fault-injection run's cluster control (plain JavaScript, shared with `npm run chaos`).
const { Postgres } = require('../../scripts/chaos/cluster') as { Postgres: new (tmp: string, name: string) => PostgresCluster };

export interface PostgresCluster {
  /** Its data folder. */
  dir: string;
  url: string;
  adminUrl: string;
  port: number;
  init(): Promise<void>;
  standbyOf(primary: PostgresCluster): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  crash(): Promise<void>;
}

/**
 * A PostgreSQL primary of the test's own (initdb in a temporary folder, on a free port) and a streaming
 * replica of it (pg_basebackup -R): a real hot standby, as docs/scaling.md's read replica. The shared
 * server on 5432 is never touched. `prepare` runs on the primary before the base backup (the database,
 * roles and migrations), so the replica starts with all of it.
 */
export class PrivateReplication {
  private readonly tmp = mkdtempSync(join(tmpdir(), 'rewards-replica-'));
  readonly primary: PostgresCluster;
  readonly replica: PostgresCluster;
  /** Replicas made by `standby`, stopped with the rest. */
  private readonly more: PostgresCluster[] = [];

  constructor() {
    // The clusters run as the postgres user when the tests run as root: it must reach their folders.
    chmodSync(this.tmp, 0o755);
    this.primary = new Postgres(this.tmp, 'primary');
    this.replica = new Postgres(this.tmp, 'replica');
  }

  async start(prepare: (primaryUrl: string) => Promise<void>): Promise<this> {
    await this.primary.init();
    await this.primary.start();
    await prepare(this.primary.url);
    await this.replica.standbyOf(this.primary);
    await this.replica.start();
    return this;
  }

  /** One more streaming replica of the primary (a base backup of it as it is now), started. */
  async standby(name: string): Promise<PostgresCluster> {
    const replica = new Postgres(this.tmp, name);
    this.more.push(replica);
    await replica.standbyOf(this.primary);
    await replica.start();
    return replica;
  }

  /** Stops replaying WAL (the replica still answers, with what it had): a replica falling behind, at will. */
  async pauseReplay(replica = this.replica): Promise<void> {
    await query(replica.url, 'SELECT pg_wal_replay_pause()');
  }

  async resumeReplay(replica = this.replica): Promise<void> {
    await query(replica.url, 'SELECT pg_wal_replay_resume()');
  }

  /** Waits until the replica has replayed everything the primary had written when this was called. */
  async caughtUp(replica = this.replica): Promise<void> {
    const [{ lsn }] = await query<{ lsn: string }>(this.primary.url, 'SELECT pg_current_wal_lsn()::text AS lsn');
    await eventually(async () => {
      const [{ behind }] = await query<{ behind: boolean }>(replica.url, `SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind`, [lsn]);
      return !behind;
    });
  }

  /**
   * Stops every process of `cluster` where it is (SIGSTOP), as a host that froze: its connections stay
   * open, and nothing on them is answered until `thaw`. Returns the processes stopped.
   */
  freeze(cluster = this.replica, stopped: number[] = []): number[] {
    const postmaster = Number(readFileSync(join(cluster.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // The postmaster first (it starts no new child while stopped), then its children, read from /proc.
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      // Noted as it is stopped, so that a thaw after a failure part-way resumes what was stopped.
      if (signal(pid, 'SIGSTOP')) stopped.push(pid);
    }
    return stopped;
  }

  thaw(stopped: number[]): void {
    for (const pid of stopped) signal(pid, 'SIGCONT');
  }

  async stop(): Promise<void> {
    for (const replica of this.more) await replica.stop().catch(() => undefined);
    await this.replica.stop().catch(() => undefined);
    await this.primary.stop().catch(() => undefined);
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** Sends `name` to `pid`; false if it has exited meanwhile (a short-lived backend). */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** The processes whose parent is `pid` (Linux: the parent is the fourth field of /proc/<pid>/stat, after the name in parentheses). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // Exited while the list was read.
    }
  }
  return children;
}

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
