import { Client } from 'pg';
import { AppConfig, redactUrl, throughPooler } from '../config/app-config';
import { StartupError } from './startup-checks';

/**
 * The two database roles of the service (docs/operations.md, Database roles).
 *
 * - OWNER_ROLE owns every table, function and trigger; the migrations run as it. Only an owner (or a
 *   superuser) can switch a trigger off, so this role is never used to serve requests.
 * - RUNTIME_ROLE is what the API, the worker and the CLI act as: the DML each table needs, and on the
 *   append-only tables (audit_log, wallet_transactions) only INSERT and SELECT. Its grants are made by
 *   the migrations (the baseline, 1764000000000-baseline.ts, and the default privileges it sets).
 *
 * Both are NOLOGIN group roles: the connections of DATABASE_MIGRATION_URL and DATABASE_URL log in as
 * whatever user they name and act as these roles from their first statement (`-c role=...`).
 */
export const OWNER_ROLE = 'rewards_owner';
export const RUNTIME_ROLE = 'rewards_app';

// Any fixed number (not the migrations' one): two instances starting at once set a database up one after the other.
const SETUP_LOCK = 72_410_002;

/** Session settings of the migration connection: it creates objects as the owner role. */
export const MIGRATION_SESSION_OPTIONS = `-c jit=off -c role=${OWNER_ROLE}`;

/**
 * Before the migrations: when the migration connection's user is a superuser (a stock local
 * PostgreSQL, the default DATABASE_URL), creates both roles if missing and lets the owner create in
 * the schema. Otherwise the roles must exist already (the operator made them) and the user must be
 * able to act as the owner.
 */
export async function ensureDatabaseRoles(config: AppConfig): Promise<void> {
  await withSetupClient(config.databaseMigrationUrl, async (client) => {
    const { rows } = await client.query<{ superuser: boolean; owner: boolean | null; runtime: boolean }>(
      `SELECT r.rolsuper AS superuser,
              EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2) AS runtime,
              CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) THEN pg_has_role(current_user, $1, 'MEMBER') END AS owner
         FROM pg_roles r WHERE r.rolname = current_user`,
      [OWNER_ROLE, RUNTIME_ROLE],
    );
    const me = rows[0];
    if (me.superuser) {
      await client.query('SELECT pg_advisory_lock($1)', [SETUP_LOCK]);
      try {
        await setUpAsSuperuser(client);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SETUP_LOCK]);
      }
      return;
    }
    const missing = [me.owner === null ? OWNER_ROLE : null, me.runtime ? null : RUNTIME_ROLE].filter(Boolean);
    if (missing.length > 0) {
      throw new StartupError(
        `PostgreSQL at ${redactUrl(config.databaseMigrationUrl)} has no role ${missing.join(' or ')} and its user is not a superuser that could create it: create the roles as docs/operations.md (Database roles) shows`,
      );
    }
    if (!me.owner) {
      throw new StartupError(
        `The user of ${redactUrl(config.databaseMigrationUrl)} cannot act as ${OWNER_ROLE}, which runs the migrations: GRANT ${OWNER_ROLE} TO that user (docs/operations.md, Database roles)`,
      );
    }
  });
}

/**
 * Through a pooler (DATABASE_DIRECT_URL set apart from DATABASE_URL): the serving sessions cannot carry
 * `-c role=... -c jit=off` (a pooler in transaction mode passes no `options` on, and hands each
 * transaction whichever server session is free), so they become defaults of DATABASE_URL's user in
 * this database: `ALTER ROLE <user> IN DATABASE <db> SET role = rewards_app, SET jit = off`. Made
 * over the migration connection, after the migrations, every start (nothing when already so). Its
 * user may do it as a superuser, with CREATEROLE, or for itself; otherwise the operator does it once
 * (docs/scaling.md, PgBouncer). The pooler must log in to PostgreSQL as the user DATABASE_URL names.
 */
export async function applyPooledSessionDefaults(config: AppConfig): Promise<void> {
  if (!throughPooler(config)) return;
  const user = decodeURIComponent(new URL(config.databaseUrl).username);
  if (!user) throw new StartupError('DATABASE_URL names no user: through a pooler (DATABASE_DIRECT_URL set) it must, so that its sessions can be given the runtime role (docs/scaling.md, PgBouncer)');
  await withSetupClient(config.databaseMigrationUrl, async (client) => {
    const { rows } = await client.query<{ settings: string[] | null; database: string }>(
      `SELECT current_database() AS database,
              (SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
                WHERE r.rolname = $1 AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())) AS settings`,
      [user],
    );
    const have = new Set(rows[0].settings ?? []);
    const statements = POOLED_SESSION_DEFAULTS.filter(([name, value]) => !have.has(`${name}=${value}`)).map(
      ([name, value]) => `ALTER ROLE ${quoteIdent(user)} IN DATABASE ${quoteIdent(rows[0].database)} SET ${name} = ${value}`,
    );
    for (const statement of statements) {
      await client.query(statement).catch((error: { code?: string; message?: string }) => {
        throw new StartupError(
          `Could not give DATABASE_URL's user its session defaults (${error.code ?? error.message}): as a superuser, run ${statements.join('; ')} (docs/scaling.md, PgBouncer)`,
        );
      });
    }
  });
}

/** What every serving session must be set to, as `-c` options (SESSION_OPTIONS) or, through a pooler, as its user's defaults. */
const POOLED_SESSION_DEFAULTS: [string, string][] = [
  ['role', RUNTIME_ROLE],
  ['jit', 'off'],
];

/**
 * After the migrations: DATABASE_URL's user must be able to act as the runtime role, or nothing would
 * work. Through a pooler no options are sent: its sessions must already act as the runtime role.
 */
export async function checkRuntimeRole(config: AppConfig, sessionOptions: string): Promise<void> {
  const pooled = throughPooler(config);
  const client = new Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 3000, ...(pooled ? {} : { options: sessionOptions }) });
  client.on('error', () => undefined);
  let actingAs: string;
  try {
    await client.connect();
    actingAs = (await client.query<{ role: string }>('SELECT current_user AS role')).rows[0].role;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === '42501') {
      throw new StartupError(
        `The user of DATABASE_URL (${redactUrl(config.databaseUrl)}) cannot act as ${RUNTIME_ROLE}: GRANT ${RUNTIME_ROLE} TO that user (docs/operations.md, Database roles)`,
      );
    }
    throw new StartupError(`PostgreSQL at ${redactUrl(config.databaseUrl)} refused the service's connection (${e.code ?? e.message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
  if (actingAs !== RUNTIME_ROLE) {
    throw new StartupError(
      `The sessions of DATABASE_URL (${redactUrl(config.databaseUrl)}, a pooler) act as ${actingAs}, not ${RUNTIME_ROLE}: the pooler must log in as the user DATABASE_URL names (docs/scaling.md, PgBouncer)`,
    );
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The roles and the schema's grants; the baseline then creates everything as the owner role. */
async function setUpAsSuperuser(client: Client): Promise<void> {
  for (const role of [OWNER_ROLE, RUNTIME_ROLE]) {
    const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (rowCount) continue;
    // Roles belong to the whole server: another database's first start may create it at the same moment.
    await client.query(`CREATE ROLE ${role} NOLOGIN`).catch((error: { code?: string }) => {
      if (error.code !== '42710' && error.code !== '23505') throw error;
    });
  }
  // As PostgreSQL 15 has it by default: only the owner role creates in the schema, the runtime role uses it.
  await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
  await client.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${OWNER_ROLE}`);
  await client.query(`GRANT USAGE ON SCHEMA public TO ${RUNTIME_ROLE}`);
}

async function withSetupClient(url: string, work: (client: Client) => Promise<void>): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000, application_name: 'setup' });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    throw new StartupError(`PostgreSQL at ${redactUrl(url)} refused the set-up connection (${e.code ?? e.message})`);
  }
  try {
    // Itself, whatever defaults its user has in this database (through a pooler, the runtime role: applyPooledSessionDefaults).
    await client.query('SET ROLE NONE');
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
