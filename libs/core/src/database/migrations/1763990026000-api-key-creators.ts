import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key made in the dashboard never grants more than its creator's role (docs/auth.md, API keys):
 * the key remembers who made it and the API scopes it was granted then. Keys made with the operator
 * CLI have neither and keep the read/write rule.
 *
 * Operator commands are audited too (docs/audit-log.md); `oauth-client:create` changes no account,
 * so an operator's entry may have none.
 */
export class ApiKeyCreators1763990026000 implements MigrationInterface {
  name = 'ApiKeyCreators1763990026000';

  async up(db: QueryRunner): Promise<void> {
    // No ON DELETE SET NULL: a key that lost its creator must not fall back to the operator's rule.
    await db.query(`
      ALTER TABLE api_keys
        ADD COLUMN created_by_user_id text REFERENCES users (id),
        ADD COLUMN granted_scopes text[],
        ADD CONSTRAINT api_keys_granted_scopes_check CHECK (created_by_user_id IS NULL OR granted_scopes IS NOT NULL)`);
    await db.query(`CREATE INDEX api_keys_created_by_idx ON api_keys (account_id, created_by_user_id) WHERE created_by_user_id IS NOT NULL`);
    await backfillDashboardKeys(db);

    await db.query(`ALTER TABLE audit_log ALTER COLUMN account_id DROP NOT NULL`);
    await db.query(`
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_account_check CHECK (account_id IS NOT NULL OR actor_type = 'operator')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_account_check`);
    await db.query(`ALTER TABLE api_keys DROP CONSTRAINT api_keys_granted_scopes_check`);
    await db.query(`ALTER TABLE api_keys DROP COLUMN granted_scopes, DROP COLUMN created_by_user_id`);
  }
}

/** The API scopes of each role when this migration was written (libs/auth/src/scopes.ts). */
const READ = ['account:read', 'catalog:read', 'rewards:read', 'wallet:read', 'webhooks:read'];
const WRITE_OF_ROLE: Record<string, string[]> = {
  viewer: [],
  developer: ['rewards:write', 'webhooks:write'],
  admin: ['rewards:write', 'webhooks:write', 'account:write', 'wallet:write'],
  owner: ['rewards:write', 'webhooks:write', 'account:write', 'wallet:write'],
};
const WRITE = WRITE_OF_ROLE.owner;

/**
 * Keys made in the dashboard before keys remembered their creator: the audit log's `api_key.created`
 * entry names the person. Each is limited to what that person's role allows now, and a key whose
 * creator has left the account is revoked. Exported for its test.
 */
export async function backfillDashboardKeys(db: { query(sql: string, params?: unknown[]): Promise<any> }): Promise<void> {
  const keys: { id: string; scopes: string[]; creator: string; role: string | null }[] = await db.query(`
    SELECT k.id, k.scopes, a.actor_id AS creator, m.role
      FROM api_keys k
      JOIN audit_log a ON a.account_id = k.account_id AND a.target_id = k.id
                      AND a.action = 'api_key.created' AND a.actor_type = 'user' AND a.actor_id IS NOT NULL
      LEFT JOIN memberships m ON m.account_id = k.account_id AND m.user_id = a.actor_id
     WHERE k.created_by_user_id IS NULL AND EXISTS (SELECT 1 FROM users u WHERE u.id = a.actor_id)`);
  for (const key of keys) {
    const held = [...(key.scopes.includes('read') ? READ : []), ...(key.scopes.includes('write') ? WRITE : [])];
    const allowed = key.role ? [...READ, ...(WRITE_OF_ROLE[key.role] ?? [])] : [];
    const granted = held.filter((scope) => allowed.includes(scope));
    await db.query(
      `UPDATE api_keys SET created_by_user_id = $2, granted_scopes = $3::text[],
              revoked_at = CASE WHEN $4::boolean THEN coalesce(revoked_at, now()) ELSE revoked_at END
        WHERE id = $1`,
      [key.id, key.creator, granted, key.role === null],
    );
  }
}
