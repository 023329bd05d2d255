import { DataSource } from 'typeorm';
import { RewardBackgroundJobs } from '@app/rewards';
import { adminDataSource } from '../support/database-admin';
import { eventually } from '../support/processes';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { choiceReward, countRows, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/**
 * The expiry drain at scale (docs/rewards.md, Expiry): many rewards of one merchant due at once are
 * expired in short batches shared by several sweepers, each reward once, with its ledger row and its
 * event, while sends to the same merchant go on.
 */
describe('expiry drain: many due rewards of one merchant, several sweepers, sends meanwhile', () => {
  let t: TestApp;
  let workers: TestWorker[];
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    workers = [await startTestWorker(t), await startTestWorker(t)];
    dataSource = t.app.get(DataSource);
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await t.close();
  });

  /** `count` CHOICE rewards of `valueCents` sent in bulk, then made due (their expiry moved into the past). */
  const dueRewards = async (m: SeededMerchant, count: number, valueCents: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let sent = 0; sent < count; sent += 500) {
      const items = Array.from({ length: Math.min(500, count - sent) }, () =>
        choiceReward(valueCents, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() }),
      );
      const res = await t.api.as(m.key).post('/v1/rewards/bulk', { rewards: items });
      expect(res.status).toBe(207);
      expect(res.body.failed).toBe(0);
      for (const r of res.body.results as { rewardId: string }[]) ids.push(r.rewardId);
    }
    await dataSource.query(`UPDATE rewards SET expires_at = now() - interval '1 second' WHERE id = ANY($1::text[])`, [ids]);
    return ids;
  };

  it('expires every due reward once, with one RELEASE and one reward.expired each, each wallet updated once per batch, sends going through', async () => {
    const hot = await seedMerchant(t);
    const other = await seedMerchant(t);
    await fund(t, hot, 2_000_000);
    await fund(t, other, 200_000);
    const hotIds = await dueRewards(hot, 600, 1_000);
    const otherIds = await dueRewards(other, 60, 1_000);
    const notDue = (await t.api.as(hot.key).post('/v1/rewards', choiceReward(1_000, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() }))).body.reward.id;
    // The workers are still recording the rewards' e-mails, each on its reward's row, which a sweep passes by
    // (SKIP LOCKED) while it is held: the drain starts once they are all recorded.
    await eventually(
      async () => (await countRows(dataSource, `SELECT 1 FROM rewards WHERE id = ANY($1::text[]) AND email_status <> 'DELIVERED'`, [[...hotIds, ...otherIds]])) === 0,
      60_000,
    );

    // Every change of a wallet row's balances, with the transaction that made it (made as the owner role:
    // the service's own role may create no table or trigger).
    const owner = await adminDataSource(t.config.databaseUrl);
    await owner.query(`CREATE TABLE test_wallet_updates (txid bigint NOT NULL, account_id text NOT NULL)`);
    await owner.query(`
      CREATE FUNCTION test_count_wallet_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_wallet_updates VALUES (txid_current(), NEW.account_id); RETURN NULL; END $$`);
    await owner.query(`
      CREATE TRIGGER test_count_wallet_updates AFTER UPDATE ON wallets
      FOR EACH ROW WHEN (NEW.reserved_cents < OLD.reserved_cents) EXECUTE FUNCTION test_count_wallet_update()`);

    try {
      // Four sweepers over two workers, in batches of 50, while 30 sends to the hot merchant go on.
      const sweepers = [...workers, ...workers].map((w) => w.app.get(RewardBackgroundJobs));
      const [counts, sends] = await Promise.all([
        Promise.all(sweepers.map((sweeper) => sweeper.expireDue(50))),
        Promise.all(Array.from({ length: 30 }, () => t.api.as(hot.key).post('/v1/rewards', choiceReward(500)))),
      ]);
      expect(sends.map((s) => s.status)).toEqual(Array(30).fill(201));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(660);

      const all = [...hotIds, ...otherIds];
      expect(await countRows(dataSource, `SELECT 1 FROM rewards WHERE id = ANY($1::text[]) AND status = 'EXPIRED' AND remaining_value_cents = 0`, [all])).toBe(660);
      expect(
        await countRows(dataSource, `SELECT 1 FROM wallet_transactions WHERE kind = 'RELEASE' AND related_type = 'reward' AND related_id = ANY($1::text[])`, [all]),
      ).toBe(660);
      // One outbox event and one timeline entry per reward, under the same id.
      expect(
        await countRows(
          dataSource,
          `SELECT 1 FROM events e JOIN reward_events t ON t.id = e.id
            WHERE e.type = 'reward.expired' AND t.type = 'reward.expired' AND t.reward_id = ANY($1::text[])
              AND e.data->>'id' = t.reward_id AND e.data->>'status' = 'EXPIRED'`,
          [all],
        ),
      ).toBe(660);
      expect((await t.api.as(hot.key).get(`/v1/rewards/${notDue}`)).body.reward.status).toBe('SENT');

      // Each batch updated each of its wallets once, not once per reward.
      const [updates] = await dataSource.query(
        `SELECT count(*)::int AS batches, max(n)::int AS most FROM (SELECT txid, account_id, count(*) AS n FROM test_wallet_updates GROUP BY 1, 2) q`,
      );
      expect(updates.most).toBe(1);
      expect(updates.batches).toBeLessThanOrEqual(Math.ceil(600 / 50) + Math.ceil(60 / 50) + sweepers.length);

      // The money: the expired rewards' value is back, the sends' is held.
      expect((await t.api.as(hot.key).get('/v1/wallet')).body.wallet).toMatchObject({
        availableCents: 2_000_000 - 1_000 - 30 * 500,
        reservedCents: 1_000 + 30 * 500,
      });
      expect((await t.api.as(other.key).get('/v1/wallet')).body.wallet).toMatchObject({ availableCents: 200_000, reservedCents: 0 });
      await expectLedgerInvariants(dataSource, hot.accountId);
      await expectLedgerInvariants(dataSource, other.accountId);

      // Nothing left to expire: a second drain finds nothing and changes nothing.
      expect(await workers[0].app.get(RewardBackgroundJobs).expireDue(50)).toBe(0);
    } finally {
      await owner.query(`DROP TRIGGER test_count_wallet_updates ON wallets`);
      await owner.query(`DROP FUNCTION test_count_wallet_update`);
      await owner.query(`DROP TABLE test_wallet_updates`);
      await owner.destroy();
    }
  });
});
