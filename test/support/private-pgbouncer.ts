import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { RUNTIME_ROLE } from '../../libs/core/src/database/database-roles';

/**
 * The login user of the serving sessions through the pooler in tests: a member of the runtime role and
 * nothing more, as docs/scaling.md advises (its defaults in each database make it act as that role). Not
 * the superuser of DATABASE_URL, whose own sessions (the tests' admin connections) must stay superuser.
 */
export const POOLED_USER = 'rewards_pooled';

/**
 * A PgBouncer of the test's own (Debian's /usr/sbin/pgbouncer) on a free port, in transaction mode, in
 * front of the PostgreSQL on 127.0.0.1:5432: every database by name (`*`), trust authentication for the
 * users of its user list (PostgreSQL trusts loopback too). Like test/support/private-redis.ts for Redis.
 * It passes no `options` startup parameter on (PgBouncer 1.18 refuses a client that sends one), so the
 * service's sessions through it carry nothing but what their user's defaults and SET LOCAL give them.
 */
export class PrivatePgBouncer {
  port = 0;
  private child: ChildProcess | null = null;
  private dir = '';
  private output = '';

  /** `settings`: more `[pgbouncer]` lines (name to value), e.g. a shorter `server_login_retry`. */
  constructor(private readonly options: { poolSize?: number; server?: { host: string; port: number }; settings?: Record<string, string | number> } = {}) {}

  /** `url` (a direct PostgreSQL URL) through this pooler, logging in as POOLED_USER. */
  pooled(url: string): string {
    const through = new URL(url);
    through.host = `127.0.0.1:${this.port}`;
    through.username = POOLED_USER;
    through.password = '';
    return through.toString();
  }

  /** The admin console (`SHOW POOLS`, `SHOW SERVERS`...): its rows. */
  async show<T = Record<string, string>>(what: 'POOLS' | 'SERVERS' | 'CLIENTS' | 'CONFIG' | 'STATS'): Promise<T[]> {
    const client = new Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database: 'pgbouncer' });
    await client.connect();
    try {
      // No parameters: node-postgres sends it with the simple query protocol, the only one the console speaks.
      return (await client.query(`SHOW ${what}`)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async start(): Promise<this> {
    const server = this.options.server ?? { host: '127.0.0.1', port: 5432 };
    await ensurePooledUser(`postgres://postgres@${server.host}:${server.port}/postgres`);
    this.port ||= await freePort();
    this.dir = mkdtempSync(join(tmpdir(), 'rewards-pgbouncer-'));
    writeFileSync(join(this.dir, 'userlist.txt'), `"postgres" ""\n"${POOLED_USER}" ""\n`);
    writeFileSync(
      join(this.dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.host} port=${server.port}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${this.port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(this.dir, 'userlist.txt')}`,
        'admin_users = postgres',
        'pool_mode = transaction',
        `default_pool_size = ${this.options.poolSize ?? 10}`,
        'max_client_conn = 2000',
        // node-postgres sends none of these; kept so a client that does is not refused for it.
        'ignore_startup_parameters = extra_float_digits',
        'log_connections = 0',
        'log_disconnections = 0',
        ...Object.entries(this.options.settings ?? {}).map(([name, value]) => `${name} = ${value}`),
        '',
      ].join('\n'),
    );
    // PgBouncer refuses to run as root: it drops to nobody, who must read its files.
    chmodSync(this.dir, 0o755);
    const asRoot = process.getuid?.() === 0;
    const child = spawn('pgbouncer', [...(asRoot ? ['-u', 'nobody'] : []), join(this.dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child = child;
    try {
      await waitUntil(() => accepts(this.port), 10_000);
    } catch (error) {
      throw new Error(`pgbouncer did not start: ${this.output || (error as Error).message}`);
    }
    return this;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A login role that may act as the runtime role; created once for the whole cluster (roles are global). */
export async function ensurePooledUser(adminUrl = 'postgres://postgres@127.0.0.1:5432/postgres'): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [POOLED_USER]);
    if (!rowCount) {
      await client.query(`CREATE ROLE ${POOLED_USER} LOGIN`).catch((error: { code?: string }) => {
        if (error.code !== '42710' && error.code !== '23505') throw error;
      });
    }
    const { rows } = await client.query<{ member: boolean }>(`SELECT pg_has_role($1, $2, 'MEMBER') AS member`, [POOLED_USER, RUNTIME_ROLE]);
    if (!rows[0].member) await client.query(`GRANT ${RUNTIME_ROLE} TO ${POOLED_USER}`);
  } finally {
    await client.end();
  }
}

/** Whether the `pgbouncer` binary is on the PATH. */
export function pgbouncerInstalled(): boolean {
  return spawnSync('pgbouncer', ['--version'], { stdio: 'ignore' }).status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}
