import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IdentityRepository, TotpService, UserDirectory } from '@app/account';
import { AuditTrail, CredentialResolverRegistry, scopesOfRole, Session, SessionStore, SignInLimiter } from '@app/auth';
import { ApiError, NotFoundError, RateLimitedError, UnauthorizedError } from '@app/core';
import { SessionDto } from './dto/session.dto';

const WRONG_CREDENTIALS = 'The e-mail or password is not right.';

/** A session just started: its body, and the token the cookie carries. */
export interface StartedSession {
  body: SessionDto;
  token: string;
}

/**
 * Dashboard sign-in and the session's view of the user: their accounts and the current one.
 * docs/dashboard.md explains the choices (which account is current, what a failure reveals).
 */
@Injectable()
export class DashboardSessionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sessions: SessionStore,
    private readonly users: UserDirectory,
    private readonly limiter: SignInLimiter,
    private readonly totp: TotpService,
    private readonly audit: AuditTrail,
    private readonly registry: CredentialResolverRegistry,
    private readonly identity: IdentityRepository,
  ) {}

  /**
   * Checks the password (as slowly for an unknown e-mail as for a wrong password) and, for a user
   * with two-factor sign-in, the code; then starts a new session, ending the one the browser came
   * with, so an id planted before sign-in is worth nothing after it.
   */
  async signIn(
    input: { email: string; password: string; totpCode?: string },
    context: { ipAddress: string | null; previousToken?: string },
  ): Promise<StartedSession> {
    const email = input.email.trim().toLowerCase();
    const admitted = await this.limiter.admit(context.ipAddress ?? 'unknown', email);
    if (!admitted.allowed) throw new RateLimitedError(admitted.retryAfterSeconds, 'Too many sign-in attempts; retry later.');

    const user = await this.users.verifyPassword(email, input.password);
    if (!user) {
      await this.limiter.failed(email);
      await this.recordFailure(email, 'password', context.ipAddress);
      throw new UnauthorizedError(WRONG_CREDENTIALS);
    }
    if (await this.totp.isEnabled(user.id)) {
      if (!input.totpCode) throw new ApiError(401, 'totp_required', 'Enter the code of your authenticator app.');
      if (!(await this.totp.verifyAtSignIn(user.id, input.totpCode))) {
        await this.limiter.failed(email);
        await this.recordFailure(email, 'totp', context.ipAddress);
        throw new UnauthorizedError('The two-factor code is not right.');
      }
    }

    const previous = context.previousToken ? await this.sessions.find('dashboard', context.previousToken) : null;
    return this.dataSource.transaction(async (manager) => {
      if (previous) await this.sessions.end(previous.id, manager);
      const memberships = await this.identity.membershipsOf(manager, user.id);
      const { session, token } = await this.sessions.start(
        'dashboard',
        { userId: user.id, currentAccountId: memberships[0]?.accountId ?? null },
        manager,
      );
      for (const membership of memberships) {
        await this.audit.record(manager, {
          accountId: membership.accountId,
          actor: { type: 'user', id: user.id, label: user.email },
          action: 'session.signed_in',
          targetType: 'session',
          targetId: session.id,
          ipAddress: context.ipAddress,
        });
      }
      return { body: await this.body(session, manager), token };
    });
  }

  /** Signs a user in without a password: right after they set one (an accepted invitation). */
  async startFor(userId: string, currentAccountId: string, manager: EntityManager): Promise<StartedSession> {
    const { session, token } = await this.sessions.start('dashboard', { userId, currentAccountId }, manager);
    return { body: await this.body(session, manager), token };
  }

  async body(session: Session, manager: EntityManager = this.dataSource.manager): Promise<SessionDto> {
    const userId = session.userId!;
    const memberships = await this.identity.membershipsOf(manager, userId);
    const current = memberships.find((membership) => membership.accountId === session.currentAccountId);
    return {
      user: { id: userId, email: (await this.identity.emailOf(manager, userId))!, twoFactorEnabled: await this.identity.totpEnabled(userId) },
      memberships,
      currentAccountId: session.currentAccountId,
      // The same table the session credential resolver acts with (scopesOfRole), so the web app
      // offers what the server allows without a copy of the role table (docs/dashboard.md).
      scopes: current ? scopesOfRole(current.role) : [],
      csrfToken: session.csrfToken,
    };
  }

  async switchAccount(session: Session & { userId: string }, accountId: string): Promise<SessionDto> {
    const memberships = await this.identity.membershipsOf(this.dataSource.manager, session.userId);
    if (!memberships.some((membership) => membership.accountId === accountId)) throw new NotFoundError('Account');
    await this.sessions.setCurrentAccount(session.id, accountId);
    // The database announces it to every process; this one forgets at once.
    this.registry.revoked();
    return this.body({ ...session, currentAccountId: accountId });
  }

  async signOut(session: Session): Promise<void> {
    await this.sessions.end(session.id);
    this.registry.revoked();
  }

  /** A failed sign-in of a known user goes to each of their accounts' audit logs; an unknown e-mail is not audited. */
  private async recordFailure(email: string, reason: 'password' | 'totp', ipAddress: string | null): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const userId = await this.identity.userIdByEmail(manager, email);
      if (!userId) return;
      for (const accountId of await this.identity.accountIdsOf(manager, userId)) {
        await this.audit.record(manager, {
          accountId,
          actor: { type: 'user', id: userId, label: email },
          action: 'session.sign_in_failed',
          targetType: 'user',
          targetId: userId,
          metadata: { reason },
          ipAddress,
        });
      }
    });
  }
}
