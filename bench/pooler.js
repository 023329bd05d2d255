'use strict';
// BENCH_POOLER=pgbouncer: a PgBouncer of the bench's own (Debian's /usr/sbin/pgbouncer) in transaction
// mode on a free port, in front of BENCH_PG, and the settings that put the service behind it as
// docs/scaling.md (PgBouncer) has it: DATABASE_URL through the pooler with a login of its own that is a
// member of the runtime role, DATABASE_DIRECT_URL straight to PostgreSQL for the LISTEN session, the
// migrations and their advisory lock. Only the service goes through it: the ceiling replay
// (bench/replay.js) and the bench's own sessions stay direct, because the ceiling is the database's own
// figure. The ini follows test/support/private-pgbouncer.ts.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { freePort, portOpen } = require('../scripts/chaos/cluster');
const { PG, TMP, DB_NAME, DATABASE_URL, POOL_SIZE, APPLICATION_NAME, log, sleep } = require('./config');

/** The login of the service's pooled sessions: as test/support/private-pgbouncer.ts (roles are global, so both share it). */
const POOLED_USER = 'rewards_pooled';
/** The role the serving sessions act as (RUNTIME_ROLE of libs/core/src/database/database-roles.ts). */
const RUNTIME_ROLE = 'rewards_app';

class PgBouncer {
  constructor({ port, dir, child, version }) {
    this.port = port;
    this.dir = dir;
    this.child = child;
    this.version = version;
    this.poolSize = POOL_SIZE;
    this.logFile = path.join(TMP, 'pgbouncer.log');
  }

  /** What the results say about the service's connections (results.config.pooler). */
  describe() {
    return {
      mode: 'pgbouncer',
      version: this.version,
      poolMode: 'transaction',
      poolSize: this.poolSize,
      reservePoolSize: 0,
      serviceDatabaseUrl: this.pooledUrl(),
      serviceDirectUrl: DATABASE_URL,
      ceiling: 'direct',
    };
  }

  /** DATABASE_URL through this pooler, logging in as POOLED_USER. */
  pooledUrl() {
    const through = new URL(DATABASE_URL);
    through.host = `127.0.0.1:${this.port}`;
    through.username = POOLED_USER;
    through.password = '';
    return through.toString();
  }

  /** The service's settings on top of SERVICE_ENV (docs/scaling.md, PgBouncer). */
  serviceEnv() {
    return { DATABASE_URL: this.pooledUrl(), DATABASE_DIRECT_URL: DATABASE_URL };
  }

  /** Rows of the admin console (`SHOW POOLS`, `SHOW STATS`, `SHOW CLIENTS`...). */
  async show(what) {
    const client = new Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database: 'pgbouncer', application_name: APPLICATION_NAME });
    await client.connect();
    try {
      // No parameters: node-postgres then uses the simple query protocol, the only one the console speaks.
      return (await client.query(`SHOW ${what}`)).rows;
    } finally {
      await client.end();
    }
  }

  /** The bench database's counters (SHOW STATS) and server sessions (SHOW POOLS), to take differences of. */
  async snapshot() {
    const stats = (await this.show('STATS')).find((r) => r.database === DB_NAME) || {};
    const pools = (await this.show('POOLS')).filter((r) => r.database === DB_NAME);
    const n = (v) => Number(v || 0);
    const sum = (key) => pools.reduce((a, p) => a + n(p[key]), 0);
    return {
      transactions: n(stats.total_xact_count),
      queries: n(stats.total_query_count),
      waitUs: n(stats.total_wait_time),
      serverSessions: sum('sv_active') + sum('sv_idle') + sum('sv_used') + sum('sv_tested') + sum('sv_login'),
      clients: sum('cl_active') + sum('cl_waiting'),
    };
  }

  /**
   * What went through the pooler between two snapshots: the evidence that the service's statements did,
   * and how long its clients waited for a server session (a pool too small shows here).
   */
  static difference(a, b) {
    return {
      transactions: b.transactions - a.transactions,
      queries: b.queries - a.queries,
      clientWaitMs: Math.round((b.waitUs - a.waitUs) / 1000),
      serverSessions: b.serverSessions,
      serviceClients: b.clients,
    };
  }

  /** Stops pgbouncer and removes its directory (its log stays in the bench's TMP, beside service.log). */
  async stop() {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** For a signal handler, which cannot wait: SIGKILL, as the process is about to exit. */
  stopNow() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Starts the PgBouncer: pool of POOL_SIZE server sessions (BENCH_POOLER_POOL_SIZE), no reserve, so
 * the figure is taken with a known number of sessions; query_wait_timeout 10 s as docs/scaling.md
 * advises (a client that waits longer gets an error, counted, instead of a two-minute stall).
 */
async function startPgBouncer() {
  const server = new URL(PG);
  const serverHost = server.hostname || '127.0.0.1';
  const serverPort = Number(server.port || 5432);
  await ensurePooledUser();
  const version = execFileSync('pgbouncer', ['--version'], { encoding: 'utf8' }).match(/PgBouncer (\S+)/)?.[1] || 'unknown';
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rewards-bench-pgbouncer-'));
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"postgres" ""\n"${POOLED_USER}" ""\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${serverHost} port=${serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${POOL_SIZE}`,
      'reserve_pool_size = 0',
      // The service's pools may open 20 + 20 + 10 client connections (docs/scaling.md, Connections per process), the CLI a few more.
      'max_client_conn = 500',
      'query_wait_timeout = 10',
      // node-postgres sends none of these; kept so a client that does is not refused for it.
      'ignore_startup_parameters = extra_float_digits',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it drops to nobody, who must read its files.
  fs.chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  const out = fs.openSync(path.join(TMP, 'pgbouncer.log'), 'a');
  const child = spawn('pgbouncer', [...(asRoot ? ['-u', 'nobody'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const pooler = new PgBouncer({ port, dir, child, version });
  const deadline = Date.now() + 10_000;
  while (!(await portOpen(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await pooler.stop();
      throw new Error(`pgbouncer did not start; see ${pooler.logFile}`);
    }
    await sleep(50);
  }
  log(`pgbouncer ${version} on 127.0.0.1:${port} (transaction mode, pool ${POOL_SIZE}): the service's DATABASE_URL goes through it, the ceiling replay stays direct`);
  return pooler;
}

/** A login role that may act as the runtime role (docs/scaling.md: the pooled path gets a login of its own). */
async function ensurePooledUser() {
  const client = new Client({ connectionString: `${PG}/postgres`, application_name: APPLICATION_NAME });
  await client.connect();
  // Roles belong to the whole server: a test or another bench may create one at the same moment.
  const tolerateRace = (error) => {
    if (error.code !== '42710' && error.code !== '23505') throw error;
  };
  try {
    for (const [role, attributes] of [
      [RUNTIME_ROLE, 'NOLOGIN'], // the service creates it at its first start; the grant below needs it now
      [POOLED_USER, 'LOGIN'],
    ]) {
      const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      if (!rowCount) await client.query(`CREATE ROLE ${role} ${attributes}`).catch(tolerateRace);
    }
    const { rows } = await client.query(`SELECT pg_has_role($1, $2, 'MEMBER') AS member`, [POOLED_USER, RUNTIME_ROLE]);
    if (!rows[0].member) await client.query(`GRANT ${RUNTIME_ROLE} TO ${POOLED_USER}`);
  } finally {
    await client.end();
  }
}

module.exports = { startPgBouncer, PgBouncer, POOLED_USER };
