import { Client } from 'pg';
import { loadConfig, randomToken } from '@app/core';
import { prepareInfrastructure } from '../../libs/core/src/database/prepare';

export interface IsolatedDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of its own, for suites that change shared data (the catalog) that suites
 * running in parallel read. Pass `url` as DATABASE_URL to startTestApp.
 */
export async function createIsolatedDatabase(): Promise<IsolatedDatabase> {
  const url = new URL(process.env.DATABASE_URL!);
  const name = `${url.pathname.slice(1)}_${randomToken(4).toLowerCase()}`;
  url.pathname = `/${name}`;
  await prepareInfrastructure(loadConfig({ ...process.env, DATABASE_URL: url.toString() }));
  return {
    url: url.toString(),
    async drop() {
      if (process.env.KEEP_TEST_DATABASE) return;
      const admin = new URL(url);
      admin.pathname = '/postgres';
      const client = new Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}
