import { DataSource, QueryRunner } from 'typeorm';
import { OWNER_ROLE, RUNTIME_ROLE } from '@app/core';
import { adminDataSource } from '../support/database-admin';
import { fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The service logs in with DATABASE_URL, a superuser here as on a stock local PostgreSQL, and yet acts
 * as the runtime role: none of the ways past the append-only triggers of the audit log and the wallet
 * ledger is open to it (docs/operations.md, Database roles).
 */
describe('database roles', () => {
  let t: TestApp;
  let service: DataSource;
  let superuser: DataSource;
  let merchant: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp();
    service = t.app.get(DataSource);
    superuser = await adminDataSource(process.env.DATABASE_URL!, { superuser: true });
    merchant = await seedMerchant(t);
    await fund(t, merchant, 5_000);
  });
  afterAll(async () => {
    await superuser?.destroy();
    await t.close();
  });

  /** What the merchant's audit entries and ledger rows are, read past any role. */
  const snapshot = async (accountId = merchant.accountId) => ({
    audit: await superuser.query(`SELECT id, action, metadata FROM audit_log WHERE account_id = $1 ORDER BY seq`, [accountId]),
    ledger: await superuser.query(`SELECT id, kind, available_delta_cents FROM wallet_transactions WHERE account_id = $1 ORDER BY seq`, [accountId]),
  });

  /** One of the service's own pooled sessions, in a transaction that is rolled back whatever happens. */
  async function inServiceSession(work: (runner: QueryRunner) => Promise<void>): Promise<void> {
    const runner = service.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await work(runner);
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }

  it('the service logs in as the superuser of DATABASE_URL but acts as the runtime role, which owns nothing', async () => {
    const [session] = await service.query(
      `SELECT current_user AS acting, session_user AS login, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser`,
    );
    expect(session).toEqual({ acting: RUNTIME_ROLE, login: 'postgres', superuser: false });
    const owners = await superuser.query(
      `SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S')`,
    );
    expect(owners).toEqual([{ owner: OWNER_ROLE }]);
    expect((await snapshot()).audit.map((e: { action: string }) => e.action)).toEqual(['topup.created']);
    expect((await snapshot()).ledger.map((e: { kind: string }) => e.kind)).toEqual(['TOPUP']);
  });

  it('cannot switch the append-only triggers off: neither session_replication_role nor DISABLE TRIGGER', async () => {
    const before = await snapshot();
    for (const table of ['audit_log', 'wallet_transactions']) {
      await inServiceSession(async (runner) => {
        await expect(runner.query(`SET LOCAL session_replication_role = replica`)).rejects.toThrow(
          /permission denied to set parameter "session_replication_role"/,
        );
      });
      for (const which of [`${table}_append_only`, 'USER', 'ALL']) {
        await inServiceSession(async (runner) => {
          await expect(runner.query(`ALTER TABLE ${table} DISABLE TRIGGER ${which}`)).rejects.toThrow(/must be owner of table/);
        });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('cannot update, delete or truncate audit entries or ledger rows', async () => {
    const before = await snapshot();
    const attempts = [
      `UPDATE audit_log SET action = 'topup.deleted' WHERE account_id = $1`,
      `DELETE FROM audit_log WHERE account_id = $1`,
      `UPDATE wallet_transactions SET available_delta_cents = 1 WHERE account_id = $1`,
      `DELETE FROM wallet_transactions WHERE account_id = $1`,
    ];
    for (const sql of attempts) {
      await inServiceSession(async (runner) => {
        await expect(runner.query(sql, [merchant.accountId])).rejects.toThrow(/permission denied for table (audit_log|wallet_transactions)/);
      });
    }
    for (const table of ['audit_log', 'wallet_transactions']) {
      await inServiceSession(async (runner) => {
        await expect(runner.query(`TRUNCATE ${table}`)).rejects.toThrow(/permission denied for table/);
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('cannot reach them from inside a trigger of its own either (on a temporary table, which it may create)', async () => {
    const before = await snapshot();
    for (const table of ['audit_log', 'wallet_transactions']) {
      await inServiceSession(async (runner) => {
        await runner.query(`CREATE TEMP TABLE knock (account_id text)`);
        await runner.query(`
          CREATE FUNCTION pg_temp.knock() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN DELETE FROM ${table} WHERE account_id = NEW.account_id; RETURN NEW; END $$`);
        await runner.query(`CREATE TRIGGER knock AFTER INSERT ON knock FOR EACH ROW EXECUTE FUNCTION pg_temp.knock()`);
        await expect(runner.query(`INSERT INTO knock VALUES ($1)`, [merchant.accountId])).rejects.toThrow(/permission denied for table/);
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('cannot write a wallet balance, not even from triggers of its own nested deep enough to pass the balance guard', async () => {
    const balances = () => superuser.query(`SELECT available_cents, reserved_cents FROM wallets WHERE account_id = $1`, [merchant.accountId]);
    const before = await balances();
    await inServiceSession(async (runner) => {
      await expect(runner.query(`UPDATE wallets SET available_cents = available_cents + 100000 WHERE account_id = $1`, [merchant.accountId])).rejects.toThrow(
        /permission denied for table wallets/,
      );
    });
    await inServiceSession(async (runner) => {
      await runner.query(`CREATE TEMP TABLE outer_knock (account_id text)`);
      await runner.query(`CREATE TEMP TABLE inner_knock (account_id text)`);
      await runner.query(`
        CREATE FUNCTION pg_temp.outer_knock() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO inner_knock VALUES (NEW.account_id); RETURN NEW; END $$`);
      await runner.query(`
        CREATE FUNCTION pg_temp.inner_knock() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE wallets SET available_cents = available_cents + 100000 WHERE account_id = NEW.account_id; RETURN NEW; END $$`);
      await runner.query(`CREATE TRIGGER outer_knock AFTER INSERT ON outer_knock FOR EACH ROW EXECUTE FUNCTION pg_temp.outer_knock()`);
      await runner.query(`CREATE TRIGGER inner_knock AFTER INSERT ON inner_knock FOR EACH ROW EXECUTE FUNCTION pg_temp.inner_knock()`);
      await expect(runner.query(`INSERT INTO outer_knock VALUES ($1)`, [merchant.accountId])).rejects.toThrow(/permission denied for table wallets/);
    });
    expect(await balances()).toEqual(before);
    // The service's own way still moves them: a ledger row, applied by the ledger's trigger.
    await fund(t, merchant, 100);
    expect(await balances()).toEqual([{ ...before[0], available_cents: String(Number(before[0].available_cents) + 100) }]);
  });

  it('the triggers themselves make no exception for statements run from inside a trigger, even for a superuser', async () => {
    const before = await snapshot();
    for (const table of ['audit_log', 'wallet_transactions']) {
      const runner = superuser.createQueryRunner();
      await runner.startTransaction();
      try {
        await runner.query(`CREATE TEMP TABLE knock (account_id text)`);
        await runner.query(`
          CREATE FUNCTION pg_temp.knock() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN DELETE FROM ${table} WHERE account_id = NEW.account_id; RETURN NEW; END $$`);
        await runner.query(`CREATE TRIGGER knock AFTER INSERT ON knock FOR EACH ROW EXECUTE FUNCTION pg_temp.knock()`);
        await expect(runner.query(`INSERT INTO knock VALUES ($1)`, [merchant.accountId])).rejects.toThrow(/is append-only/);
      } finally {
        await runner.rollbackTransaction().catch(() => undefined);
        await runner.release();
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('deleting an account (an operator, as the owner role) still takes its entries and its ledger with it', async () => {
    const gone = await seedMerchant(t);
    await fund(t, gone, 1_000);
    const kept = await snapshot();
    expect((await snapshot(gone.accountId)).ledger).toHaveLength(1);
    await inServiceSession(async (runner) => {
      await expect(runner.query(`DELETE FROM accounts WHERE id = $1`, [gone.accountId])).rejects.toThrow(/permission denied for table accounts/);
    });
    const owner = await adminDataSource(process.env.DATABASE_URL!);
    try {
      await owner.query(`DELETE FROM accounts WHERE id = $1`, [gone.accountId]);
    } finally {
      await owner.destroy();
    }
    expect(await snapshot(gone.accountId)).toEqual({ audit: [], ledger: [] });
    expect(await snapshot()).toEqual(kept);
  });
});
