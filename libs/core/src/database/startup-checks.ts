import { Client } from 'pg';
import Redis from 'ioredis';
import { AppConfig, redactUrl } from '../config/app-config';

const HOW_TO_START =
  'start it with `docker compose -f docker/compose.yml up -d postgres redis` or your OS package';

/** A dependency could not be reached; main() prints `message` as one line and exits. */
export class StartupError extends Error {}

function reason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ?? e.message ?? String(error);
}

/**
 * Connects to the database named in DATABASE_MIGRATION_URL (DATABASE_URL unless set), creating it
 * first when the server is there but the database is not, so `npm start` works against a bare
 * Postgres server.
 */
export async function ensureDatabase(config: AppConfig): Promise<void> {
  const setupUrl = config.databaseMigrationUrl;
  const variable = setupUrl === config.databaseUrl ? 'DATABASE_URL' : 'DATABASE_MIGRATION_URL';
  const target = new URL(setupUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new StartupError(`Invalid configuration: ${variable} names no database (${redactUrl(setupUrl)})`);
  try {
    await withClient(setupUrl, async () => undefined);
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw unreachable('PostgreSQL', setupUrl, error);
  }
  const maintenance = new URL(setupUrl);
  maintenance.pathname = '/postgres';
  try {
    await withClient(maintenance.toString(), (client) =>
      client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // another instance created it first
      }),
    );
  } catch (error) {
    throw new StartupError(
      `PostgreSQL at ${redactUrl(setupUrl)} has no database "${name}" and creating it failed (${reason(error)})`,
    );
  }
}

export async function checkRedis(config: AppConfig): Promise<void> {
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    // ioredis rejects with "Connection is closed"; the socket error it saw first says why.
    throw unreachable('Redis', config.redisUrl, cause ?? error);
  } finally {
    redis.disconnect();
  }
}

function unreachable(what: string, url: string, error: unknown): StartupError {
  return new StartupError(`${what} is not reachable at ${redactUrl(url)} (${reason(error)}): ${HOW_TO_START}.`);
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
