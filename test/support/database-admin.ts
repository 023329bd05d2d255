import { DataSource } from 'typeorm';
import { OWNER_ROLE } from '@app/core';
import { directUrl } from './pooler';

/**
 * A connection for what a test arranges and the service's runtime role may not do (docs/operations.md,
 * Database roles): create a table or a trigger, change a table's settings, delete rows the service
 * never deletes. It logs in as DATABASE_URL does (a superuser in tests) and acts as the owner role, as
 * the migrations do, so what it creates is the owner's and the runtime role gets its default grants on
 * it; `{ superuser: true }` keeps the superuser itself. Destroy it when done.
 */
export async function adminDataSource(databaseUrl: string, options: { superuser?: boolean } = {}): Promise<DataSource> {
  const role = options.superuser ? '' : ` -c role=${OWNER_ROLE}`;
  // Straight to PostgreSQL even when the app serves through the run's PgBouncer (test/support/pooler.ts): `options` and SET ROLE need a session.
  return new DataSource({ type: 'postgres', url: directUrl(databaseUrl), extra: { max: 2, options: `-c jit=off${role}` } }).initialize();
}
