import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { IdentityRepository, TotpService, UserDirectory } from '@app/account';
import { AuditTrail, SignInLimiter } from '@app/auth';
import { AuthorizeSession, AuthorizeSessionStore } from './authorize-session.store';

/** Where a sign-in on the authorize pages comes from: the client address and the app being connected. */
export interface SignInContext {
  ipAddress: string | null;
  clientId: string;
}

export type SignInOutcome =
  /** Too many attempts from the address, or failures for the e-mail. */
  | { kind: 'limited'; retryAfterSeconds: number }
  /** Wrong e-mail or password, or wrong two-factor code; counted against the e-mail. */
  | { kind: 'wrong' }
  /** The form's session ended meanwhile (a doubled or replayed POST). */
  | { kind: 'expired' }
  /** Right password, and the user has two-factor sign-in: a two-factor session waits for the code. */
  | { kind: 'code_needed'; session: AuthorizeSession }
  /** Signed in: a new authorize session for the user, on to account choice and consent. */
  | { kind: 'signed_in'; session: AuthorizeSession };

/**
 * Sign-in on the OAuth authorize pages, with the dashboard's rules (docs/oauth.md): the same
 * attempt limits, two-factor sign-in for a user who has it, and the same audit entries. The code
 * step is bound to the password step on the server: only the two-factor session started by a right
 * password leads to it, that session lives five minutes, and it ends as the code is accepted.
 */
@Injectable()
export class AuthorizeSignInService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sessions: AuthorizeSessionStore,
    private readonly users: UserDirectory,
    private readonly totp: TotpService,
    private readonly limiter: SignInLimiter,
    private readonly audit: AuditTrail,
    private readonly identity: IdentityRepository,
  ) {}

  /** The password step. `current` is the form's session; it ends when the password is right. */
  async withPassword(current: AuthorizeSession, email: string, password: string, context: SignInContext): Promise<SignInOutcome> {
    const admitted = await this.limiter.admit(context.ipAddress ?? 'unknown', email);
    if (!admitted.allowed) return { kind: 'limited', retryAfterSeconds: admitted.retryAfterSeconds };
    const user = email && password ? await this.users.verifyPassword(email, password) : null;
    if (!user) {
      await this.failed(email, 'password', context);
      return { kind: 'wrong' };
    }
    // A fresh session id at every step, so an id planted before it is worth nothing after.
    if (!(await this.sessions.end(current.id))) return { kind: 'expired' };
    if (await this.totp.isEnabled(user.id)) return { kind: 'code_needed', session: await this.sessions.startTwoFactor(user.id) };
    return { kind: 'signed_in', session: await this.signedIn(user.id, context) };
  }

  /** The code step, from the two-factor session the password step started. */
  async withCode(pending: AuthorizeSession & { userId: string }, code: string, context: SignInContext): Promise<SignInOutcome> {
    const email = (await this.users.emailOf(pending.userId)) ?? '';
    const admitted = await this.limiter.admit(context.ipAddress ?? 'unknown', email);
    if (!admitted.allowed) return { kind: 'limited', retryAfterSeconds: admitted.retryAfterSeconds };
    // A wrong code keeps the two-factor session, for a mistyped code; the e-mail's failure limit bounds guessing.
    if (!(await this.totp.verifyAtSignIn(pending.userId, code))) {
      await this.failed(email, 'totp', context);
      return { kind: 'wrong' };
    }
    if (!(await this.sessions.end(pending.id))) return { kind: 'expired' };
    return { kind: 'signed_in', session: await this.signedIn(pending.userId, context) };
  }

  private signedIn(userId: string, context: SignInContext): Promise<AuthorizeSession> {
    return this.dataSource.transaction(async (manager) => {
      const session = await this.sessions.start(userId, manager);
      const email = await this.identity.emailOf(manager, userId);
      for (const accountId of await this.identity.accountIdsOf(manager, userId)) {
        await this.audit.record(manager, {
          accountId,
          actor: { type: 'user', id: userId, label: email! },
          action: 'session.signed_in',
          targetType: 'session',
          targetId: session.id,
          metadata: { via: 'oauth_authorize', clientId: context.clientId },
          ipAddress: context.ipAddress,
        });
      }
      return session;
    });
  }

  /** Counted against the e-mail; audited in each account of a known user, as a dashboard sign-in failure is. */
  private async failed(email: string, reason: 'password' | 'totp', context: SignInContext): Promise<void> {
    await this.limiter.failed(email);
    if (!email) return;
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
          metadata: { reason, via: 'oauth_authorize', clientId: context.clientId },
          ipAddress: context.ipAddress,
        });
      }
    });
  }
}
