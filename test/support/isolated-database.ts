import { Client } from 'pg';
import { isolatedDatabase } from './test-app';

export interface IsolatedDatabase {
  url: string;
  drop(): Promise<void>;
}

/** isolatedDatabase() with a drop() for suites that clean up after themselves. */
export async function createIsolatedDatabase(): Promise<IsolatedDatabase> {
  const url = new URL((await isolatedDatabase()).DATABASE_URL);
  const name = url.pathname.slice(1);
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
