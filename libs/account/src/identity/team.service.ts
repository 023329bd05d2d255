import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { apiScopesOfRole, AuditEntry, AuditTrail, CredentialResolverRegistry, Principal, Role, Scope, SessionStore } from '@app/auth';
import { ForbiddenError, NotFoundError, ValidationError } from '@app/core';
import { ApiKeyService } from '../api-key.service';
import { IdentityRepository, MemberRow } from './identity.repository';

/** A member of an account, as the dashboard shows them. */
export interface Member {
  /** `usr_` */
  userId: string;
  email: string;
  role: Role;
  /** When they joined the account. */
  createdAt: string;
}

/** Who made a change and from where, as the audit log records it. */
export interface IdentityActor {
  userId: string;
  email: string;
  ipAddress: string | null;
}

export function userActor(actor: IdentityActor): Pick<AuditEntry, 'actor' | 'ipAddress'> {
  return { actor: { type: 'user', id: actor.userId, label: actor.email }, ipAddress: actor.ipAddress };
}

/**
 * The people of an account and their roles (docs/dashboard.md). Two rules hold under concurrency
 * because every change first locks the account's memberships and reads the actor's role from them:
 * the account keeps at least one owner, and only an owner makes, demotes or removes an owner. A change reaches the member's open
 * sessions at once: the database announces it and every process drops its cached credentials.
 * It reaches the API keys the member made too, in the same transaction: a demotion revokes those
 * that hold more than the new role, a removal revokes them all (docs/auth.md, API keys).
 */
@Injectable()
export class TeamService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    private readonly registry: CredentialResolverRegistry,
    private readonly keys: ApiKeyService,
    private readonly identity: IdentityRepository,
    private readonly sessions: SessionStore,
  ) {}

  async list(accountId: string): Promise<Member[]> {
    return (await this.identity.listMembers(accountId)).map(toMember);
  }

  async changeRole(principal: Principal, actor: IdentityActor, userId: string, role: Role): Promise<Member> {
    const member = await this.dataSource.transaction(async (manager) => {
      const members = await this.identity.lockMembers(manager, principal.accountId);
      const target = members.find((candidate) => candidate.user_id === userId);
      if (!target) throw new NotFoundError('Member');
      if ((target.role === 'owner' || role === 'owner') && roleOf(members, actor.userId) !== 'owner') {
        throw new ForbiddenError('Only an owner may make or demote an owner.');
      }
      if (target.role === 'owner' && role !== 'owner') assertAnotherOwner(members, userId);
      if (target.role === role) return target;
      await this.identity.setRole(manager, principal.accountId, userId, role);
      await this.audit.record(manager, {
        accountId: principal.accountId,
        action: 'member.role_changed',
        targetType: 'user',
        targetId: userId,
        metadata: { email: target.email, from: target.role, to: role },
        ...userActor(actor),
      });
      await this.revokeKeysOf(manager, principal.accountId, actor, target, apiScopesOfRole(role), 'creator_role_changed');
      return { ...target, role };
    });
    this.registry.revoked();
    return toMember(member);
  }

  /**
   * Removes the member. Their sessions that were acting on this account move to another of their
   * accounts (the first by name), or to none, in the same transaction: their next request on this
   * account is refused.
   */
  async remove(principal: Principal, actor: IdentityActor, userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const members = await this.identity.lockMembers(manager, principal.accountId);
      const target = members.find((candidate) => candidate.user_id === userId);
      if (!target) throw new NotFoundError('Member');
      if (target.role === 'owner' && roleOf(members, actor.userId) !== 'owner') throw new ForbiddenError('Only an owner may remove an owner.');
      if (target.role === 'owner') assertAnotherOwner(members, userId);
      await this.identity.removeMember(manager, principal.accountId, userId);
      // Their sessions on this account move to the first other account by name, as a sign-in would choose.
      const [next] = await this.identity.accountIdsOf(manager, userId);
      await this.sessions.moveOffAccount(userId, principal.accountId, next ?? null, manager);
      await this.audit.record(manager, {
        accountId: principal.accountId,
        action: 'member.removed',
        targetType: 'user',
        targetId: userId,
        metadata: { email: target.email, role: target.role },
        ...userActor(actor),
      });
      await this.revokeKeysOf(manager, principal.accountId, actor, target, null, 'creator_removed');
    });
    this.registry.revoked();
  }

  /** Revokes the member's keys that `keepWithin` (null: nothing) no longer covers, each with its audit entry. */
  private async revokeKeysOf(
    manager: EntityManager,
    accountId: string,
    actor: IdentityActor,
    member: MemberRow,
    keepWithin: readonly Scope[] | null,
    reason: 'creator_role_changed' | 'creator_removed',
  ): Promise<void> {
    const revoked = await this.keys.revokeCreatedBy(manager, accountId, member.user_id, keepWithin);
    for (const key of revoked) {
      await this.audit.record(manager, {
        accountId,
        action: 'api_key.revoked',
        targetType: 'api_key',
        targetId: key.id,
        metadata: { name: key.name, reason, createdBy: { userId: member.user_id, email: member.email } },
        ...userActor(actor),
      });
    }
  }
}

/** The actor's role as locked now, not as their session saw it when the request began. */
function roleOf(members: MemberRow[], userId: string): Role | undefined {
  return members.find((member) => member.user_id === userId)?.role;
}

function assertAnotherOwner(members: MemberRow[], leavingUserId: string): void {
  if (!members.some((member) => member.role === 'owner' && member.user_id !== leavingUserId)) {
    throw new ValidationError('An account must keep at least one owner: make someone else owner first.');
  }
}

function toMember(row: MemberRow): Member {
  return { userId: row.user_id, email: row.email, role: row.role, createdAt: row.created_at.toISOString() };
}
