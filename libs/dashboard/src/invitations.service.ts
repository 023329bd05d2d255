import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IdentityRepository, InvitationRow, PasswordHasher } from '@app/account';
import { AuditTrail, CredentialResolverRegistry, Principal, RateLimiter, Role, Session, SessionStore } from '@app/auth';
import {
  APP_CONFIG,
  AppConfig,
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  randomToken,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from '@app/core';
import { Mailer } from '@app/mail';
import { ActorContext, userActor } from './audit-context';
import { DashboardSessionService, StartedSession } from './dashboard-session.service';
import { invitationEmail } from './dashboard-emails';
import { InvitationDto, InvitationPreviewDto } from './dto/team.dto';
import { assertAcceptablePassword } from './password-policy';

const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** Accept attempts (right or made-up links) per client address a minute; a new user's costs a password hash. */
const ACCEPTS_PER_ADDRESS = 20;

/**
 * Invitations to join an account by e-mail: a single-use link valid 7 days whose token is stored
 * only as its hash. Accepted as a new user (who chooses a password) or by the signed-in user with
 * that e-mail. A used, revoked or expired link is simply not found.
 */
@Injectable()
export class InvitationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mailer: Mailer,
    private readonly audit: AuditTrail,
    private readonly sessions: SessionStore,
    private readonly dashboardSessions: DashboardSessionService,
    private readonly registry: CredentialResolverRegistry,
    private readonly limiter: RateLimiter,
    private readonly hasher: PasswordHasher,
    private readonly identity: IdentityRepository,
  ) {}

  async list(accountId: string): Promise<InvitationDto[]> {
    return (await this.identity.listInvitations(accountId)).map(toInvitationDto);
  }

  /**
   * The e-mail is sent inside the transaction: if it cannot be sent, no invitation exists (the
   * admin sees the error and retries), and a link that was sent always works.
   */
  async create(principal: Principal, actor: ActorContext, input: { email: string; role: Role }): Promise<InvitationDto> {
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
      const accountName = await this.identity.accountName(manager, principal.accountId);
      await this.mailer.send(
        invitationEmail({
          to: email,
          accountName,
          role: input.role,
          link: `${this.config.publicBaseUrl}/dashboard/invitations/${token}`,
          invitationId: row.id,
        }),
      );
      return toInvitationDto(row);
    });
  }

  async revoke(accountId: string, actor: ActorContext, id: string): Promise<void> {
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

  async preview(token: string): Promise<InvitationPreviewDto> {
    const row = await this.identity.previewInvitation(token);
    if (!row) throw new NotFoundError('Invitation');
    return { email: row.email, accountName: row.account_name, role: row.role, existingUser: row.existing_user };
  }

  /**
   * A new user sets their password and is signed in with a new session; an existing user must be
   * signed in as that e-mail, and their session moves to the account they joined.
   */
  async accept(
    token: string,
    input: { password?: string },
    context: { session: Session | null; ipAddress: string | null },
  ): Promise<StartedSession | { body: Awaited<ReturnType<DashboardSessionService['body']>>; token?: undefined }> {
    const usage = await this.limiter.hit('invitation-accept', context.ipAddress ?? 'unknown', ACCEPTS_PER_ADDRESS);
    if (!usage.allowed) throw new RateLimitedError(usage.resetSeconds);
    if (input.password !== undefined) assertAcceptablePassword(input.password, 'password');
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
        if (!context.session?.userId) throw new UnauthorizedError('Sign in as the invited user to accept.');
        if (context.session.userId !== existing) throw new ForbiddenError('This invitation is for another user.');
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
      return this.sessionAfterJoin(manager, context.session, existing ? null : userId, invitation.account_id);
    });
    this.registry.revoked();
    return result;
  }

  private async sessionAfterJoin(
    manager: EntityManager,
    session: Session | null,
    newUserId: string | null,
    accountId: string,
  ): Promise<StartedSession | { body: Awaited<ReturnType<DashboardSessionService['body']>> }> {
    if (newUserId) {
      if (session) await this.sessions.end(session.id, manager);
      return this.dashboardSessions.startFor(newUserId, accountId, manager);
    }
    await this.sessions.setCurrentAccount(session!.id, accountId, manager);
    return { body: await this.dashboardSessions.body({ ...session!, currentAccountId: accountId }, manager) };
  }
}

function toInvitationDto(row: InvitationRow): InvitationDto {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}
