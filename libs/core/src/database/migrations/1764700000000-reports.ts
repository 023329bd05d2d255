import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Asynchronous reports (docs/reports.md): a request, built by a worker into CSV, kept 7 days.
 *
 * - reports: one row per request. `status` PENDING → RUNNING → COMPLETED or FAILED; a builder holds
 *   it under a lease (`leased_until`, `attempts` counts the takes). `filters` are the list filters
 *   as checked at the request, the creation range always set.
 * - report_chunks: the CSV, in pieces of about 1 MB in the order written, under the attempt that
 *   wrote them (`attempt`): a builder that lost its lease cannot mix its pieces with its successor's,
 *   and the download reads those of the attempt that completed the report. In PostgreSQL so that
 *   every API instance can answer a download without a shared disk or an object store, and so that
 *   the file and its report are written, completed and deleted together.
 * Expired reports are deleted by the worker (their chunks with them).
 */
export class Reports1764700000000 implements MigrationInterface {
  name = 'Reports1764700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE reports (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        type text NOT NULL CONSTRAINT reports_type_check CHECK (type IN ('rewards', 'cards', 'wallet_transactions')),
        status text NOT NULL DEFAULT 'PENDING' CONSTRAINT reports_status_check CHECK (status IN ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED')),
        filters jsonb NOT NULL,
        row_count bigint,
        byte_count bigint,
        failure_reason text,
        attempts integer NOT NULL DEFAULT 0,
        leased_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        started_at timestamptz,
        completed_at timestamptz,
        expires_at timestamptz,
        CONSTRAINT reports_completed_check CHECK ((status = 'COMPLETED') = (completed_at IS NOT NULL AND expires_at IS NOT NULL AND row_count IS NOT NULL))
      )`);
    await db.query(`CREATE INDEX reports_account_created_idx ON reports (account_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX reports_open_idx ON reports (created_at) WHERE status IN ('PENDING', 'RUNNING')`);
    await db.query(`CREATE INDEX reports_expiry_idx ON reports (expires_at) WHERE status = 'COMPLETED'`);
    await db.query(`
      CREATE TABLE report_chunks (
        report_id text NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (report_id, attempt, seq)
      )`);
    // Expired reports are deleted, and a builder that starts over deletes the pieces of a lost attempt.
    await db.query(`GRANT DELETE ON reports, report_chunks TO rewards_app`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE report_chunks`);
    await db.query(`DROP TABLE reports`);
  }
}
