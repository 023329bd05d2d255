import { Client } from 'pg';
import { AppConfig, redactUrl } from '../config/app-config';
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

/** After the migrations: DATABASE_URL's user must be able to act as the runtime role, or nothing would work. */
export async function checkRuntimeRole(config: AppConfig, sessionOptions: string): Promise<void> {
  const client = new Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 3000, options: sessionOptions });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
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
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
