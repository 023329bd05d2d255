import { DataSource } from 'typeorm';
import { AuditLog } from '@app/audit';
import { runBuilt } from '../support/processes';
import { startTestApp, TestApp } from '../support/test-app';

/** The operator CLI's changes are audited (docs/audit-log.md), as the built CLI makes them. */
describe('audit log: operator CLI commands', () => {
  let t: TestApp;
  const env = () => ({ DATABASE_URL: process.env.DATABASE_URL!, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-cli-audit` });
  const cli = async (...args: string[]) => {
    const run = await runBuilt('cli', args, env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout);
  };
  const OPERATOR = { type: 'operator', id: null, label: 'operator (CLI)' };

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('merchant:create, api-key:create and api-key:revoke land in the account, by the operator, without the secret', async () => {
    const email = `cli-owner-${Date.now()}@example.test`;
    const merchant = await cli('merchant:create', '--name', 'CLI Audit Co', '--email', email, '--password', 'a long enough password', '--currency', 'EUR');
    const key = await cli('api-key:create', '--account', merchant.accountId, '--scopes', 'read,write', '--name', 'CI');
    await cli('api-key:revoke', '--id', key.id);
    // Revoking again changes nothing, so records nothing.
    await cli('api-key:revoke', '--id', key.id);

    const { entries } = await t.app.get(AuditLog).list(merchant.accountId, { page: 1, pageSize: 10 });
    expect(entries.map((entry) => [entry.action, entry.actor, entry.targetType, entry.targetId])).toEqual([
      ['api_key.revoked', OPERATOR, 'api_key', key.id],
      ['api_key.created', OPERATOR, 'api_key', key.id],
      ['account.created', OPERATOR, 'account', merchant.accountId],
    ]);
    expect(entries[1].metadata).toEqual({ name: 'CI', scopes: ['read', 'write'] });
    expect(entries[2].metadata).toEqual({ name: 'CLI Audit Co', currency: 'EUR', owner: { userId: merchant.userId, email } });
    expect(entries.every((entry) => entry.ipAddress === null)).toBe(true);
    expect(JSON.stringify(entries)).not.toContain(key.key);
  });

  it('oauth-client:create is recorded as an entry of no account, without the client secret', async () => {
    const created = await cli('oauth-client:create', '--name', 'Audited App', '--redirect-uri', 'https://app.example.test/cb', '--scopes', 'account:read');
    const rows = await t.app.get(DataSource).query(`SELECT * FROM audit_log WHERE target_id = $1`, [created.clientId]);
    expect(rows).toEqual([
      expect.objectContaining({
        account_id: null,
        actor_type: 'operator',
        actor_id: null,
        action: 'oauth_client.created',
        target_type: 'oauth_client',
        metadata: { name: 'Audited App', redirectUris: ['https://app.example.test/cb'], scopes: ['account:read'] },
      }),
    ]);
    expect(JSON.stringify(rows)).not.toContain(created.clientSecret);
  });

  it('an account-less entry is the operator\'s only: the database refuses one from anyone else', async () => {
    await expect(
      t.app.get(DataSource).query(`INSERT INTO audit_log (id, account_id, actor_type, action) VALUES ('aud_x', NULL, 'user', 'account.created')`),
    ).rejects.toThrow(/audit_log_account_check/);
  });
});
