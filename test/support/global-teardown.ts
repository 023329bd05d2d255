import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';

/** Drops the run's database and its Redis keys (set KEEP_TEST_DATABASE=1 to inspect them). */
export default async function globalTeardown(): Promise<void> {
  await ((globalThis as Record<symbol, unknown>)[Symbol.for('rewards.test.pgbouncer')] as { stop(): Promise<void> } | undefined)?.stop();
  // The summary reporter has read the guard's record by now (reporters finish before the teardown).
  if (process.env.OUTBOUND_GUARD_RECORD) rmSync(dirname(process.env.OUTBOUND_GUARD_RECORD), { recursive: true, force: true });
  if (process.env.KEEP_TEST_DATABASE) return;
  const url = new URL(process.env.DATABASE_URL!);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  // The run's database (the template) and the copies made of it: one per e2e file, and isolatedDatabase()'s
  // (all named `<run database>_<suffix>`).
  const lister = new Client({ connectionString: url.toString() });
  await lister.connect();
  const { rows } = await lister.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [
    name,
    `${name.replace(/_/g, '\\_')}\\_%`,
  ]);
  await lister.end();
  // Each DROP DATABASE waits for a checkpoint; drops waiting at once share one, so a few connections
  // drop a hundred databases in about the time of a few checkpoints.
  const names = rows.map((r) => r.datname);
  await Promise.all(
    Array.from({ length: Math.min(8, names.length) }, async () => {
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      try {
        for (let next = names.pop(); next !== undefined; next = names.pop()) await client.query(`DROP DATABASE IF EXISTS "${next}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    }),
  );

  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const stream = redis.scanStream({ match: `${process.env.QUEUE_PREFIX}*`, count: 1000 });
  for await (const keys of stream) if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
  await redis.quit();
}
