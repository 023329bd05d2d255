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
 * PostgreSQL, the default DATABASE_URL), creates both roles if missing, lets the owner create in the
 * schema, and hands it whatever an older version created as that superuser. Otherwise the roles must
 * exist already (the operator made them) and the user must be able to act as the owner.
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
  // A database migrated before the roles existed: its objects belong to the superuser that made them.
  // The owner role takes them over (sequences of identity and serial columns follow their tables).
  await client.query(`
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN
        SELECT c.oid::regclass AS name,
               CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                              WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind
          FROM pg_class c
         WHERE c.relnamespace = 'public'::regnamespace
           AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
           AND c.relowner <> '${OWNER_ROLE}'::regrole
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))
      LOOP
        EXECUTE format('ALTER %s %s OWNER TO ${OWNER_ROLE}', r.kind, r.name);
      END LOOP;
      FOR r IN
        SELECT p.oid::regprocedure AS name,
               CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END AS kind
          FROM pg_proc p
         WHERE p.pronamespace = 'public'::regnamespace
           AND p.proowner <> '${OWNER_ROLE}'::regrole
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      LOOP
        EXECUTE format('ALTER %s %s OWNER TO ${OWNER_ROLE}', r.kind, r.name);
      END LOOP;
      FOR r IN
        SELECT t.oid::regtype AS name, CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END AS kind
          FROM pg_type t
         WHERE t.typnamespace = 'public'::regnamespace
           AND t.typtype IN ('e', 'd')
           AND t.typowner <> '${OWNER_ROLE}'::regrole
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
      LOOP
        EXECUTE format('ALTER %s %s OWNER TO ${OWNER_ROLE}', r.kind, r.name);
      END LOOP;
    END $$`);
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
