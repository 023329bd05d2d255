import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { InvitationService, Joined, NewInvitation } from '@app/account';
import { Principal, RateLimiter, Role, Session, SessionStore } from '@app/auth';
import { APP_CONFIG, AppConfig, RateLimitedError } from '@app/core';
import { Mailer } from '@app/mail';
import { ActorContext } from './audit-context';
import { DashboardSessionService, StartedSession } from './dashboard-session.service';
import { invitationEmail } from './dashboard-emails';
import { InvitationDto, InvitationPreviewDto } from './dto/team.dto';
import { assertAcceptablePassword } from './password-policy';

/** Accept attempts (right or made-up links) per client address a minute; a new user's costs a password hash. */
const ACCEPTS_PER_ADDRESS = 20;

/**
 * The dashboard's side of invitations: the e-mail with the link, the limit on accept attempts, the
 * password policy, and the session after joining. The rules (who may invite whom, single use,
 * expiry, one membership) are libs/account's InvitationService (docs/dashboard.md, Team and invitations).
 */
@Injectable()
export class InvitationsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mailer: Mailer,
    private readonly sessions: SessionStore,
    private readonly dashboardSessions: DashboardSessionService,
    private readonly limiter: RateLimiter,
    private readonly invitations: InvitationService,
  ) {}

  list(accountId: string): Promise<InvitationDto[]> {
    return this.invitations.list(accountId);
  }

  /**
   * The e-mail is sent inside the invitation's transaction: if it cannot be sent, no invitation
   * exists (the admin sees the error and retries), and a link that was sent always works.
   */
  create(principal: Principal, actor: ActorContext, input: { email: string; role: Role }): Promise<InvitationDto> {
    return this.invitations.create(principal, actor, input, (created) => this.sendInvitation(created));
  }

  /** A pending invitation again, with a new link (the earlier one stops working). */
  resend(accountId: string, actor: ActorContext, id: string): Promise<InvitationDto> {
    return this.invitations.resend(accountId, actor, id, (renewed) => this.sendInvitation(renewed));
  }

  private sendInvitation({ invitation, token, accountName, invitedBy }: NewInvitation): Promise<void> {
    return this.mailer.send(
      invitationEmail({
        to: invitation.email,
        accountName,
        role: invitation.role,
        invitedBy,
        link: `${this.config.publicBaseUrl}/dashboard/invitations/${token}`,
        invitationId: invitation.id,
      }),
    );
  }

  revoke(accountId: string, actor: ActorContext, id: string): Promise<void> {
    return this.invitations.revoke(accountId, actor, id);
  }

  preview(token: string): Promise<InvitationPreviewDto> {
    return this.invitations.preview(token);
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
    return this.invitations.accept(token, input, { signedInUserId: context.session?.userId ?? null, ipAddress: context.ipAddress }, (manager, joined) =>
      this.sessionAfterJoin(manager, context.session, joined),
    );
  }

  private async sessionAfterJoin(
    manager: EntityManager,
    session: Session | null,
    joined: Joined,
  ): Promise<StartedSession | { body: Awaited<ReturnType<DashboardSessionService['body']>> }> {
    if (joined.newUser) {
      if (session) await this.sessions.end(session.id, manager);
      return this.dashboardSessions.startFor(joined.userId, joined.accountId, manager);
    }
    await this.sessions.setCurrentAccount(session!.id, joined.accountId, manager);
    return { body: await this.dashboardSessions.body({ ...session!, currentAccountId: joined.accountId }, manager) };
  }
}
