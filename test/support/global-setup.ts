import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../libs/core/src/config/app-config';
import { prepareInfrastructure } from '../../libs/core/src/database/prepare';
import { PrivatePgBouncer } from './private-pgbouncer';
import { generateSwaggerMetadata } from './swagger-metadata';

/** The run's PgBouncer under TEST_THROUGH_PGBOUNCER=1, for the global teardown to stop (same process). */
export const RUN_PGBOUNCER = Symbol.for('rewards.test.pgbouncer');

/**
 * One fresh database and one Redis key prefix per test run, so runs never collide and nothing
 * from an earlier run is seen. Workers inherit these variables. The run's database is migrated here
 * and then only copied: each e2e file runs on a copy of its own (test/support/file-database.js).
 */
export default async function globalSetup(): Promise<void> {
  generateSwaggerMetadata();
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/rewards_test_${run}`;
  process.env.DATABASE_URL = base.toString();
  process.env.QUEUE_PREFIX = `test-${run}`;
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
  process.env.MAIL_OUTBOX_DIR = mkdtempSync(join(tmpdir(), 'rewards-outbox-'));
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  // Where the outbound-connection guard of every test file and spawned process writes its account
  // (test/support/outbound-guard.js; the summary reporter reads it).
  process.env.OUTBOUND_GUARD_RECORD = join(mkdtempSync(join(tmpdir(), 'rewards-outbound-guard-')), 'record.jsonl');
  // One key ring for the run, shared by the in-process apps and the built processes tests spawn (docs/secrets.md).
  process.env.ENCRYPTION_KEYS ??= `test${run}:${randomBytes(32).toString('base64')}`;
  await prepareInfrastructure(loadConfig());
  process.env.TEST_TEMPLATE_DATABASE_URL = base.toString();
  // Serve through PgBouncer in transaction mode (test/support/pooler.ts; docs/testing.md, "Through PgBouncer").
  if (process.env.TEST_THROUGH_PGBOUNCER === '1') {
    const pgbouncer = await new PrivatePgBouncer({ poolSize: 20, server: { host: base.hostname, port: Number(base.port || 5432) } }).start();
    (globalThis as Record<symbol, unknown>)[RUN_PGBOUNCER] = pgbouncer;
    process.env.TEST_PGBOUNCER_PORT = String(pgbouncer.port);
  }
}
