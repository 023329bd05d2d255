import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PasswordHasher } from '@app/account';
import { AuditTrail, CredentialResolverRegistry, Principal, RateLimiter, Role, Session, SessionStore } from '@app/auth';
import {
  APP_CONFIG,
  AppConfig,
  BadRequestError,
  ForbiddenError,
  hashSecret,
  newId,
  NotFoundError,
  queryRows,
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

interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}

const PENDING = `accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`;

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
  ) {}

  async list(accountId: string): Promise<InvitationDto[]> {
    const rows: InvitationRow[] = await this.dataSource.query(
      `SELECT * FROM invitations WHERE account_id = $1 AND ${PENDING} ORDER BY created_at DESC, id`,
      [accountId],
    );
    return rows.map(toInvitationDto);
  }

  /**
   * The e-mail is sent inside the transaction: if it cannot be sent, no invitation exists (the
   * admin sees the error and retries), and a link that was sent always works.
   */
  async create(principal: Principal, actor: ActorContext, input: { email: string; role: Role }): Promise<InvitationDto> {
    const email = input.email.trim().toLowerCase();
    if (input.role === 'owner' && principal.user?.role !== 'owner') throw new ForbiddenError('Only an owner may invite an owner.');
    return this.dataSource.transaction(async (manager) => {
      const [member]: unknown[] = await manager.query(
        `SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 AND u.email = $2`,
        [principal.accountId, email],
      );
      if (member) throw new ValidationError('This person is already a member of the account.');
      const token = randomToken(32);
      const [row]: InvitationRow[] = await manager.query(
        `INSERT INTO invitations (id, account_id, email, role, token_hash, invited_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING *`,
        [newId('inv'), principal.accountId, email, input.role, hashSecret(token), actor.userId, INVITATION_TTL_SECONDS],
      );
      await this.audit.record(manager, {
        accountId: principal.accountId,
        action: 'member.invited',
        targetType: 'invitation',
        targetId: row.id,
        metadata: { email, role: input.role },
        ...userActor(actor),
      });
      const [account]: { name: string }[] = await manager.query(`SELECT name FROM accounts WHERE id = $1`, [principal.accountId]);
      await this.mailer.send(
        invitationEmail({
          to: email,
          accountName: account.name,
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
      const [revoked] = await queryRows<{ email: string; role: Role }>(
        manager,
        `UPDATE invitations SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND ${PENDING} RETURNING email, role`,
        [id, accountId],
      );
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
    const [row]: (InvitationRow & { account_name: string; existing_user: boolean })[] = await this.dataSource.query(
      `SELECT i.*, a.name AS account_name, EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) AS existing_user
         FROM invitations i JOIN accounts a ON a.id = i.account_id
        WHERE i.token_hash = $1 AND ${PENDING.replace(/(\w+_at)/g, 'i.$1')}`,
      [hashSecret(token)],
    );
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
    const [pending]: { new_user: boolean }[] = await this.dataSource.query(
      `SELECT NOT EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) AS new_user
         FROM invitations i WHERE i.token_hash = $1 AND ${PENDING.replace(/(\w+_at)/g, 'i.$1')}`,
      [hashSecret(token)],
    );
    if (!pending) throw new NotFoundError('Invitation');
    const passwordHash = pending.new_user && input.password !== undefined ? await this.hasher.hash(input.password) : undefined;
    const result = await this.dataSource.transaction(async (manager) => {
      const [invitation]: InvitationRow[] = await manager.query(
        `SELECT * FROM invitations WHERE token_hash = $1 AND ${PENDING} FOR UPDATE`,
        [hashSecret(token)],
      );
      if (!invitation) throw new NotFoundError('Invitation');
      const [existing]: { id: string }[] = await manager.query(`SELECT id FROM users WHERE email = $1`, [invitation.email]);
      let userId: string;
      if (existing) {
        if (!context.session?.userId) throw new UnauthorizedError('Sign in as the invited user to accept.');
        if (context.session.userId !== existing.id) throw new ForbiddenError('This invitation is for another user.');
        userId = existing.id;
      } else {
        if (!passwordHash) throw new BadRequestError([{ path: 'password', message: 'is required for a new user' }]);
        userId = newId('usr');
        await manager.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3)`, [userId, invitation.email, passwordHash]);
      }
      await manager.query(
        `INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [invitation.account_id, userId, invitation.role],
      );
      await manager.query(`UPDATE invitations SET accepted_at = now() WHERE id = $1`, [invitation.id]);
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
