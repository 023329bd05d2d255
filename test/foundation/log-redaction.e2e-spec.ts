import { choiceReward, fund } from '../support/rewards';
import { adminDataSource } from '../support/database-admin';
import { captureLogLines } from '../support/log-capture';
import { seedMerchant, SeededMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * Logs never carry what a failed statement was given: a statement refused by the database is logged
 * with its SQLSTATE code, constraint and table, and nothing of the values (recipient data, secrets).
 */
describe('log redaction of failed database statements', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  // Every line the app's logger writes, at the level operators run with.
  const captured = captureLogLines();

  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_LEVEL: 'warn' } });
    merchant = await seedMerchant(t);
    await fund(t, merchant, 100_000);
    // As the owner role: the service's own role may create no trigger.
    const db = await adminDataSource(t.config.databaseUrl);
    await db.query(`
      CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION USING MESSAGE = 'refused by the test', ERRCODE = 'check_violation',
          TABLE = TG_TABLE_NAME, CONSTRAINT = 'test_refusal';
      END $$`);
    await db.query('CREATE TRIGGER refuse_rewards BEFORE INSERT ON rewards FOR EACH ROW EXECUTE FUNCTION refuse_insert()');
    await db.query('CREATE TRIGGER refuse_endpoints BEFORE INSERT ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION refuse_insert()');
    await db.destroy();
  });
  afterAll(() => t.close());

  it('a reward whose insert fails logs code, constraint and table, never the recipient, names or message', async () => {
    const res = await t.api.as(merchant.key).post(
      '/v1/rewards',
      choiceReward(1_000, {
        recipient: { email: 'zebulon.private@example.test', firstName: 'Zebulon', lastName: 'Quillfeather' },
        message: 'a-very-private-message-7731',
        externalId: 'ext-private-9915',
      }),
    );
    expect(res.status).toBe(500);
    const log = captured.lines.join('');
    expect(log).toContain('"code":"23514"');
    expect(log).toContain('"constraint":"test_refusal"');
    expect(log).toContain('"table":"rewards"');
    for (const secret of ['zebulon.private', 'Zebulon', 'Quillfeather', 'a-very-private-message-7731', 'ext-private-9915']) {
      expect(log).not.toContain(secret);
    }
    expect(log).not.toMatch(/"parameters"|"query"|INSERT INTO/);
  });

  it('a webhook endpoint whose insert fails logs nothing of its secret', async () => {
    const res = await t.api.as(merchant.key).post('/v1/webhook-endpoints', { url: 'https://example.com/private-hook', events: [] });
    expect(res.status).toBe(500);
    const log = captured.lines.join('');
    expect(log).toContain('"table":"webhook_endpoints"');
    expect(log).not.toMatch(/whsec_|"parameters"|INSERT INTO/);
  });
});
