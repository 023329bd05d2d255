import { DataSource } from 'typeorm';
import { catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { adminDataSource } from '../support/database-admin';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

// The chaos run's SQL audit (scripts/chaos/audit.js, plain JavaScript run by `npm run chaos`).
const audit = require('../../scripts/chaos/audit');

/**
 * `npm run chaos` is only as good as its audit: each check must pass on a consistent database and name
 * the violation when the database breaks the rule. Violations are made by hand here, with the ledger's
 * guard triggers switched off for the session (the service itself cannot write them).
 */
describe('the chaos audit', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let db: any;
  let dataSource: DataSource;
  let fixedCardId: string;
  let choiceId: string;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    db = new audit.Db(t.config.databaseUrl);
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const picks = await catalogPicks(t, m.key);
    const fixed = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd, { externalId: 'key-fixed' }));
    expect(fixed.status).toBe(201);
    fixedCardId = (await dataSource.query(`SELECT id FROM reward_cards WHERE reward_id = $1`, [fixed.body.reward.id]))[0].id;
    const choice = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000, { externalId: 'key-choice', recipient: recipient() }));
    expect(choice.status).toBe(201);
    choiceId = choice.body.reward.id;
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  /**
   * Runs `sql` with the ledger's triggers off, inside a transaction that is rolled back after `check`:
   * as the superuser itself, since the service's role cannot switch triggers off (docs/operations.md, Database roles).
   */
  async function broken<T>(sql: string[], check: (query: (q: string) => Promise<any[]>) => Promise<T>): Promise<T> {
    const superuser = await adminDataSource(t.config.databaseUrl, { superuser: true });
    const runner = superuser.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(`SET LOCAL session_replication_role = replica`);
      for (const statement of sql) await runner.query(statement);
      // The audit reads through its own pool, which cannot see this transaction: run its SQL here instead.
      return await check((q) => runner.query(q));
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
      await superuser.destroy();
    }
  }

  // The snapshot checks take no parameters: each is one statement, run here in the broken transaction.
  const inTransaction = (query: (q: string) => Promise<any[]>) => ({ query });

  it('finds nothing wrong with what the service wrote, pending cards and open rewards included', async () => {
    expect(await audit.snapshotChecks(db)).toEqual([]);
  });

  it('names a balance that is not the sum of its ledger rows', async () => {
    const found = await broken([`UPDATE wallets SET available_cents = available_cents + 1 WHERE account_id = '${m.accountId}'`], (q) => audit.snapshotChecks(inTransaction(q)));
    expect(found).toEqual([expect.stringContaining(`wallet ${m.accountId} available`)]);
  });

  it('names reserved money that no open reward or pending card accounts for', async () => {
    const found = await broken([`UPDATE rewards SET remaining_value_cents = 4000 WHERE id = '${choiceId}'`], (q) => audit.snapshotChecks(inTransaction(q)));
    expect(found).toEqual(
      expect.arrayContaining([expect.stringContaining('!= open rewards 4000'), expect.stringContaining(`reward ${choiceId} SENT: held 5000`)]),
    );
  });

  it('names a card both captured and released, and a pending card with a ledger row', async () => {
    const row = (kind: string, id: string, available: number, reserved: number) =>
      `INSERT INTO wallet_transactions (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, related_type, related_id)
       VALUES ('${id}', '${m.accountId}', 'USD', '${kind}', ${available}, ${reserved}, 'card', '${fixedCardId}')`;
    const found = await broken([row('CAPTURE', 'wtx_chaos1', 0, -1), row('RELEASE', 'wtx_chaos2', 1, -1)], (q) => audit.snapshotChecks(inTransaction(q)));
    expect(found).toEqual(expect.arrayContaining([expect.stringContaining(`card ${fixedCardId} PENDING: 1 capture(s), 1 release(s)`)]));
  });

  it('names an idempotency key that made two rewards', async () => {
    const columns = (
      await dataSource.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'rewards' AND column_name NOT IN ('seq', 'id') ORDER BY ordinal_position`)
    ).map((c: { column_name: string }) => c.column_name);
    const copy = `INSERT INTO rewards (id, ${columns.join(', ')}) SELECT 'rw_chaoscopy', ${columns.join(', ')} FROM rewards WHERE id = '${choiceId}'`;
    const found = await broken([copy], (q) => audit.snapshotChecks(inTransaction(q)));
    expect(found).toEqual(expect.arrayContaining(['idempotency key key-choice made 2 rewards']));
  });

  it('after settling, names pending work, an answer the database does not have, and events and e-mails that never arrived', async () => {
    const knowledge = {
      violations: [],
      createKeys: new Map([['key-choice', { accountId: m.accountId, rewardIds: new Set(['rw_not_this_one']) }]]),
      pickKeys: new Map(),
    };
    const receiver = { received: new Map(), badSignatures: [], refused: 0 };
    const sink = { byRecipient: new Map(), total: 0 };
    await dataSource.query(`UPDATE mail_jobs SET status = 'SENT', sent_at = now() WHERE reward_id = $1`, [choiceId]);
    const endpoints = [{ accountId: m.accountId, path: '/hook', createdAt: new Date(0).toISOString() }];
    const { violations } = await audit.finalChecks(db, { knowledge, receiver, sink, endpoints });
    expect(violations).toEqual(
      expect.arrayContaining([
        '1 card(s) still PENDING after settling',
        '1 e-mail(s) still PENDING after settling',
        expect.stringMatching(/^\d+ event\(s\) never dispatched$/),
        `key key-choice: the client got rw_not_this_one, the database has ${choiceId}`,
        expect.stringMatching(/^\d+ of \d+ event deliveries never reached the receiver/),
        '1 e-mail(s) marked SENT never reached the SMTP sink',
      ]),
    );
  });
});
