import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuditTrail, CredentialResolverRegistry, Principal, Role } from '@app/auth';
import { BadRequestError, ForbiddenError, NotFoundError, randomToken, UnauthorizedError, ValidationError } from '@app/core';
import { PasswordHasher } from '../password-hasher';
import { IdentityRepository, InvitationRow } from './identity.repository';
import { IdentityActor, userActor } from './team.service';

/** How long an invitation link works (docs/dashboard.md, Team and invitations). */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

/** A pending invitation, as the dashboard lists it. */
export interface Invitation {
  /** `inv_` */
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
}

/** What a link shows before it is accepted, without a session. */
export interface InvitationPreview {
  email: string;
  accountName: string;
  role: Role;
  /** A user with this e-mail exists: they accept signed in, without a password. */
  existingUser: boolean;
}

/** A new invitation with its link's token (stored only as its hash), to be sent before it exists. */
export interface NewInvitation {
  invitation: Invitation;
  token: string;
  accountName: string;
  /** The e-mail of the member who sent it, which the e-mail names. */
  invitedBy: string;
}

/** Who joined which account by an accepted invitation; `newUser` when the acceptance made their user. */
export interface Joined {
  accountId: string;
  userId: string;
  newUser: boolean;
}

/**
 * Invitations to join an account by e-mail (docs/dashboard.md, Team and invitations): a single-use
 * link valid 7 days whose token is stored only as its hash. Only an owner invites an owner; a member
 * is not invited again. Accepted as a new user (who chooses a password) or by the signed-in user
 * with that e-mail, making one membership; a used, revoked or expired link is simply not found.
 * Sending the link and signing the person in are the caller's (the dashboard's), inside the same
 * transactions through the callbacks, so a link that was sent always works.
 */
@Injectable()
export class InvitationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    private readonly registry: CredentialResolverRegistry,
    private readonly hasher: PasswordHasher,
    private readonly identity: IdentityRepository,
  ) {}

  async list(accountId: string): Promise<Invitation[]> {
    return (await this.identity.listInvitations(accountId)).map(toInvitation);
  }

  /**
   * Invites `email` to the principal's account. `send` runs inside the transaction: if it throws
   * (the e-mail could not be sent) no invitation exists.
   */
  async create(
    principal: Principal,
    actor: IdentityActor,
    input: { email: string; role: Role },
    send: (created: NewInvitation) => Promise<void>,
  ): Promise<Invitation> {
    const email = input.email.trim().toLowerCase();
    if (input.role === 'owner' && principal.user?.role !== 'owner') throw new ForbiddenError('Only an owner may invite an owner.');
    return this.dataSource.transaction(async (manager) => {
      if (await this.identity.isMemberByEmail(manager, principal.accountId, email)) throw new ValidationError('This person is already a member of the account.');
      const token = randomToken(32);
      const row = await this.identity.createInvitation(manager, {
        accountId: principal.accountId,
        email,
        role: input.role,
        token,
        invitedBy: actor.userId,
        ttlSeconds: INVITATION_TTL_SECONDS,
      });
      await this.audit.record(manager, {
        accountId: principal.accountId,
        action: 'member.invited',
        targetType: 'invitation',
        targetId: row.id,
        metadata: { email, role: input.role },
        ...userActor(actor),
      });
      const invitation = toInvitation(row);
      await send({ invitation, token, accountName: await this.identity.accountName(manager, principal.accountId), invitedBy: actor.email });
      return invitation;
    });
  }

  /**
   * Sends a pending invitation again with a new link valid 7 days from now; the earlier link stops
   * working (only the new token's hash is kept). As at creation, the e-mail is sent inside the
   * transaction: if it cannot be sent, the earlier link keeps working.
   */
  async resend(accountId: string, actor: IdentityActor, id: string, send: (renewed: NewInvitation) => Promise<void>): Promise<Invitation> {
    return this.dataSource.transaction(async (manager) => {
      const token = randomToken(32);
      const row = await this.identity.renewInvitation(manager, accountId, id, token, INVITATION_TTL_SECONDS);
      if (!row) throw new NotFoundError('Invitation');
      await this.audit.record(manager, {
        accountId,
        action: 'invitation.resent',
        targetType: 'invitation',
        targetId: id,
        metadata: { email: row.email, role: row.role },
        ...userActor(actor),
      });
      const invitation = toInvitation(row);
      await send({ invitation, token, accountName: await this.identity.accountName(manager, accountId), invitedBy: actor.email });
      return invitation;
    });
  }

  async revoke(accountId: string, actor: IdentityActor, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const revoked = await this.identity.revokeInvitation(manager, accountId, id);
      if (!revoked) throw new NotFoundError('Invitation');
      await this.audit.record(manager, {
        accountId,
        action: 'invitation.revoked',
        targetType: 'invitation',
        targetId: id,
        metadata: { email: revoked.email, role: revoked.role },
        ...userActor(actor),
      });
    });
  }

  async preview(token: string): Promise<InvitationPreview> {
    const row = await this.identity.previewInvitation(token);
    if (!row) throw new NotFoundError('Invitation');
    return { email: row.email, accountName: row.account_name, role: row.role, existingUser: row.existing_user };
  }

  /**
   * Accepts the invitation of `token` once: a new user with `password` (hashed only for a link that
   * works and a new user), or the user `signedInUserId` when it is the invited e-mail's. The
   * membership is made, the link used up and the join audited in one transaction, in which
   * `afterJoin` runs too (the caller's session work); its result is returned.
   */
  async accept<T>(
    token: string,
    input: { password?: string },
    context: { signedInUserId: string | null; ipAddress: string | null },
    afterJoin: (manager: EntityManager, joined: Joined) => Promise<T>,
  ): Promise<T> {
    // Looked up before hashing, so a made-up or spent link costs one indexed read, never a hash; and only
    // a new user's password is hashed. The transaction below looks again, under a lock, and decides.
    const newUser = await this.identity.invitationIsForNewUser(token);
    if (newUser === null) throw new NotFoundError('Invitation');
    const passwordHash = newUser && input.password !== undefined ? await this.hasher.hash(input.password) : undefined;
    const result = await this.dataSource.transaction(async (manager) => {
      const invitation = await this.identity.lockPendingInvitation(manager, token);
      if (!invitation) throw new NotFoundError('Invitation');
      const existing = await this.identity.userIdByEmail(manager, invitation.email);
      let userId: string;
      if (existing) {
        if (!context.signedInUserId) throw new UnauthorizedError('Sign in as the invited user to accept.');
        if (context.signedInUserId !== existing) throw new ForbiddenError('This invitation is for another user.');
        userId = existing;
      } else {
        if (!passwordHash) throw new BadRequestError([{ path: 'password', message: 'is required for a new user' }]);
        userId = await this.identity.createUser(manager, invitation.email, passwordHash);
      }
      await this.identity.addMember(manager, invitation.account_id, userId, invitation.role);
      await this.identity.markInvitationAccepted(manager, invitation.id);
      await this.audit.record(manager, {
        accountId: invitation.account_id,
        actor: { type: 'user', id: userId, label: invitation.email },
        action: 'member.joined',
        targetType: 'user',
        targetId: userId,
        metadata: { invitationId: invitation.id, role: invitation.role },
        ipAddress: context.ipAddress,
      });
      return afterJoin(manager, { accountId: invitation.account_id, userId, newUser: !existing });
    });
    this.registry.revoked();
    return result;
  }
}

function toInvitation(row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}
