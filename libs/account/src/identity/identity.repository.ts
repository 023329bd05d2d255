import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { hashSecret, newId, queryRows } from '@app/core';
import type { MembershipRole } from '../entities/membership.entity';

/** A member of an account, with the e-mail of their user. */
export interface MemberRow {
  user_id: string;
  email: string;
  role: MembershipRole;
  created_at: Date;
}

/** One of a user's accounts, with its name and the user's role there. */
export interface MembershipOfUser {
  accountId: string;
  accountName: string;
  role: MembershipRole;
}

/** A user's two-factor state: the sealed secret (pending until enabled) and the last step used. */
export interface TotpState {
  totp_secret: string | null;
  totp_enabled_at: Date | null;
  totp_last_step: string | null;
}

export interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  role: MembershipRole;
  created_at: Date;
  expires_at: Date;
}

const PENDING = `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`;
const PENDING_I = PENDING.replace(/(\w+_at)/g, 'i.$1');

/**
 * The SQL of the identity tables, in one place: users (with their two-factor state), memberships,
 * invitations and password resets (docs/architecture.md, Table ownership). Other libs read these
 * tables only through here or UserDirectory. The rules (who may change a role, when a link works,
 * which TOTP code counts) live in the services that call it; this only reads and writes rows. Every
 * method that takes a manager runs in the caller's transaction.
 */
@Injectable()
export class IdentityRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // --- users ---

  async userIdByEmail(manager: EntityManager, email: string): Promise<string | null> {
    const [row]: { id: string }[] = await manager.query(`SELECT id FROM users WHERE email = $1`, [email]);
    return row?.id ?? null;
  }

  async emailOf(manager: EntityManager, userId: string): Promise<string | null> {
    const [row]: { email: string }[] = await manager.query(`SELECT email FROM users WHERE id = $1`, [userId]);
    return row?.email ?? null;
  }

  /** The users of these ids, by id, with their e-mails. */
  async emailsOf(userIds: readonly string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows: { id: string; email: string }[] = await this.dataSource.query(`SELECT id, email FROM users WHERE id = ANY($1::text[])`, [
      [...userIds],
    ]);
    return new Map(rows.map((row) => [row.id, row.email]));
  }

  /** A new user (`usr_`) with this e-mail and password hash; returns its id. */
  async createUser(manager: EntityManager, email: string, passwordHash: string): Promise<string> {
    const id = newId('usr');
    await manager.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3)`, [id, email, passwordHash]);
    return id;
  }

  async setPasswordHash(manager: EntityManager, userId: string, hash: string): Promise<void> {
    await manager.query(`UPDATE users SET password_hash = $2 WHERE id = $1`, [userId, hash]);
  }

  // --- two-factor (TOTP) state of users ---

  async totpEnabled(userId: string): Promise<boolean> {
    const [row]: Pick<TotpState, 'totp_enabled_at'>[] = await this.dataSource.query(`SELECT totp_enabled_at FROM users WHERE id = $1`, [userId]);
    return !!row?.totp_enabled_at;
  }

  /** Stores a new pending secret (forgetting the last step used); false when two-factor is on, which keeps its secret. */
  async setPendingTotpSecret(userId: string, sealedSecret: string): Promise<boolean> {
    const [, updated] = (await this.dataSource.query(
      `UPDATE users SET totp_secret = $2, totp_last_step = NULL WHERE id = $1 AND totp_enabled_at IS NULL`,
      [userId, sealedSecret],
    )) as [unknown, number];
    return updated > 0;
  }

  /** The user's two-factor state, locked until the transaction ends. */
  async lockTotp(manager: EntityManager, userId: string): Promise<TotpState> {
    const [row]: TotpState[] = await manager.query(
      `SELECT totp_secret, totp_enabled_at, totp_last_step FROM users WHERE id = $1 FOR UPDATE`,
      [userId],
    );
    return row;
  }

  async setTotpLastStep(manager: EntityManager, userId: string, step: number): Promise<void> {
    await manager.query(`UPDATE users SET totp_last_step = $2 WHERE id = $1`, [userId, step]);
  }

  async enableTotp(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE users SET totp_enabled_at = now() WHERE id = $1`, [userId]);
  }

  /** Off, and the secret forgotten. */
  async disableTotp(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = $1`, [userId]);
  }

  // --- memberships ---

  /** The accounts the user belongs to, by name. */
  async membershipsOf(manager: EntityManager, userId: string): Promise<MembershipOfUser[]> {
    const rows: { account_id: string; name: string; role: MembershipRole }[] = await manager.query(
      `SELECT m.account_id, a.name, m.role FROM memberships m JOIN accounts a ON a.id = m.account_id
        WHERE m.user_id = $1 ORDER BY a.name, a.id`,
      [userId],
    );
    return rows.map((row) => ({ accountId: row.account_id, accountName: row.name, role: row.role }));
  }

  /** The accounts of the user, whatever the role, by name: an audit entry about a person lands in each. */
  async accountIdsOf(manager: EntityManager, userId: string): Promise<string[]> {
    return (await this.membershipsOf(manager, userId)).map((membership) => membership.accountId);
  }

  /** The user's role in the account and their e-mail; null when they are not a member. */
  async member(accountId: string, userId: string): Promise<{ role: MembershipRole; email: string } | null> {
    const [member]: { role: MembershipRole; email: string }[] = await this.dataSource.query(
      `SELECT m.role, u.email FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1 AND m.user_id = $2`,
      [accountId, userId],
    );
    return member ?? null;
  }

  /**
   * The user's role in the account, held (FOR SHARE) until the transaction ends: a role change or
   * removal, which locks the account's memberships first, waits for it. Null when not a member.
   */
  async holdRole(manager: EntityManager, accountId: string, userId: string): Promise<MembershipRole | null> {
    const [membership] = await queryRows<{ role: MembershipRole }>(
      manager,
      `SELECT role FROM memberships WHERE account_id = $1 AND user_id = $2 FOR SHARE`,
      [accountId, userId],
    );
    return membership?.role ?? null;
  }

  listMembers(accountId: string): Promise<MemberRow[]> {
    return this.dataSource.query(
      `SELECT m.user_id, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1 ORDER BY m.created_at DESC, m.user_id`,
      [accountId],
    );
  }

  /** The account's members, locked until the transaction ends. */
  lockMembers(manager: EntityManager, accountId: string): Promise<MemberRow[]> {
    return manager.query(
      `SELECT m.user_id, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1 ORDER BY m.user_id FOR UPDATE OF m`,
      [accountId],
    );
  }

  async isMemberByEmail(manager: EntityManager, accountId: string, email: string): Promise<boolean> {
    const [member]: unknown[] = await manager.query(
      `SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 AND u.email = $2`,
      [accountId, email],
    );
    return !!member;
  }

  /** Adds the membership; a user already member keeps their role. */
  async addMember(manager: EntityManager, accountId: string, userId: string, role: MembershipRole): Promise<void> {
    await manager.query(`INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
      accountId,
      userId,
      role,
    ]);
  }

  async setRole(manager: EntityManager, accountId: string, userId: string, role: MembershipRole): Promise<void> {
    await manager.query(`UPDATE memberships SET role = $3 WHERE account_id = $1 AND user_id = $2`, [accountId, userId, role]);
  }

  async removeMember(manager: EntityManager, accountId: string, userId: string): Promise<void> {
    await manager.query(`DELETE FROM memberships WHERE account_id = $1 AND user_id = $2`, [accountId, userId]);
  }

  // --- invitations ---

  listInvitations(accountId: string): Promise<InvitationRow[]> {
    return this.dataSource.query(`SELECT * FROM invitations WHERE account_id = $1 AND ${PENDING} ORDER BY created_at DESC, id`, [
      accountId,
    ]);
  }

  async createInvitation(
    manager: EntityManager,
    input: { accountId: string; email: string; role: MembershipRole; token: string; invitedBy: string; ttlSeconds: number },
  ): Promise<InvitationRow> {
    const [row]: InvitationRow[] = await manager.query(
      `INSERT INTO invitations (id, account_id, email, role, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING *`,
      [newId('inv'), input.accountId, input.email, input.role, hashSecret(input.token), input.invitedBy, input.ttlSeconds],
    );
    return row;
  }

  /** A pending invitation's new link: a new token hash and a new expiry; null when there is no such pending invitation. */
  async renewInvitation(manager: EntityManager, accountId: string, id: string, token: string, ttlSeconds: number): Promise<InvitationRow | null> {
    const [row] = await queryRows<InvitationRow>(
      manager,
      `UPDATE invitations SET token_hash = $3, expires_at = now() + make_interval(secs => $4)
       WHERE id = $1 AND account_id = $2 AND ${PENDING} RETURNING *`,
      [id, accountId, hashSecret(token), ttlSeconds],
    );
    return row ?? null;
  }

  /** Revokes the pending invitation; null when there is none of that id in the account. */
  async revokeInvitation(manager: EntityManager, accountId: string, id: string): Promise<{ email: string; role: MembershipRole } | null> {
    const [revoked] = await queryRows<{ email: string; role: MembershipRole }>(
      manager,
      `UPDATE invitations SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND ${PENDING} RETURNING email, role`,
      [id, accountId],
    );
    return revoked ?? null;
  }

  /** The pending invitation of this token, its account's name and whether its e-mail already has a user. */
  async previewInvitation(token: string): Promise<(InvitationRow & { account_name: string; existing_user: boolean }) | null> {
    const [row]: (InvitationRow & { account_name: string; existing_user: boolean })[] = await this.dataSource.query(
      `SELECT i.*, a.name AS account_name, EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) AS existing_user
         FROM invitations i JOIN accounts a ON a.id = i.account_id
        WHERE i.token_hash = $1 AND ${PENDING_I}`,
      [hashSecret(token)],
    );
    return row ?? null;
  }

  /** For a pending invitation of this token, whether its e-mail has no user yet; null when none is pending. */
  async invitationIsForNewUser(token: string): Promise<boolean | null> {
    const [pending]: { new_user: boolean }[] = await this.dataSource.query(
      `SELECT NOT EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) AS new_user
         FROM invitations i WHERE i.token_hash = $1 AND ${PENDING_I}`,
      [hashSecret(token)],
    );
    return pending ? pending.new_user : null;
  }

  /** The pending invitation of this token, locked until the transaction ends; or null. */
  async lockPendingInvitation(manager: EntityManager, token: string): Promise<InvitationRow | null> {
    const [row]: InvitationRow[] = await manager.query(`SELECT * FROM invitations WHERE token_hash = $1 AND ${PENDING} FOR UPDATE`, [
      hashSecret(token),
    ]);
    return row ?? null;
  }

  async markInvitationAccepted(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE invitations SET accepted_at = now() WHERE id = $1`, [id]);
  }

  // --- password resets ---

  async createPasswordReset(userId: string, token: string, ttlSeconds: number): Promise<string> {
    const id = newId('pwr');
    await this.dataSource.query(
      `INSERT INTO password_resets (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [id, userId, hashSecret(token), ttlSeconds],
    );
    return id;
  }

  async passwordResetUsable(token: string): Promise<boolean> {
    const [usable]: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`,
      [hashSecret(token)],
    );
    return !!usable;
  }

  /** Uses the link up, atomically (of two racing uses one wins); its user, or null when it does not work. */
  async usePasswordReset(manager: EntityManager, token: string): Promise<string | null> {
    const [row] = await queryRows<{ user_id: string }>(
      manager,
      `UPDATE password_resets SET used_at = now()
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
      [hashSecret(token)],
    );
    return row?.user_id ?? null;
  }

  /** Every unused link of the user dies. */
  async usePasswordResetsOf(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
  }

  // --- accounts ---

  async accountName(manager: EntityManager, accountId: string): Promise<string> {
    const [account]: { name: string }[] = await manager.query(`SELECT name FROM accounts WHERE id = $1`, [accountId]);
    return account.name;
  }
}
