import type { EntityManager } from 'typeorm';
import type { Role } from '@app/auth';

export interface MembershipOfUser {
  accountId: string;
  accountName: string;
  role: Role;
}

/** The accounts a user belongs to, by name (the session body's `memberships`). */
export async function membershipsOf(manager: EntityManager, userId: string): Promise<MembershipOfUser[]> {
  const rows: { account_id: string; name: string; role: Role }[] = await manager.query(
    `SELECT m.account_id, a.name, m.role FROM memberships m JOIN accounts a ON a.id = m.account_id
      WHERE m.user_id = $1 ORDER BY a.name, a.id`,
    [userId],
  );
  return rows.map((row) => ({ accountId: row.account_id, accountName: row.name, role: row.role }));
}

/** The accounts of each user, so an audit entry about a person lands in every account they belong to. */
export async function accountIdsOf(manager: EntityManager, userId: string): Promise<string[]> {
  return (await membershipsOf(manager, userId)).map((membership) => membership.accountId);
}
