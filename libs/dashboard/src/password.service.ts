import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IdentityRepository, PasswordHasher, UserDirectory, userActor } from '@app/account';
import { AuditTrail, CredentialResolverRegistry, RateLimiter, ReauthenticationLimiter, SessionStore } from '@app/auth';
import { APP_CONFIG, AppConfig, ForbiddenError, NotFoundError, randomToken, RateLimitedError } from '@app/core';
import { Mailer } from '@app/mail';
import { ActorContext } from './audit-context';
import { passwordResetEmail } from './dashboard-emails';
import { assertAcceptablePassword } from './password-policy';

const RESET_TTL_SECONDS = 30 * 60;
/** Reset requests per client address a minute: enough for a person, too few to flood an inbox. */
const RESET_REQUESTS_PER_ADDRESS = 10;
/** Uses of reset links (right or made up) per client address a minute; each right one costs a password hash. */
const RESET_USES_PER_ADDRESS = 20;

/**
 * Changing a password (which ends the user's other sessions) and resetting a forgotten one by an
 * e-mailed single-use link (which ends all of them). A reset request answers the same whether or
 * not the e-mail has a user, and at the same speed: the lookup and the e-mail happen after it.
 * Password hashes are dear (docs/auth.md, Password hashing): nothing is hashed for a link that does
 * not work, and wrong current passwords are limited per user.
 */
@Injectable()
export class PasswordService {
  private readonly logger = new Logger(PasswordService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UserDirectory,
    private readonly sessions: SessionStore,
    private readonly mailer: Mailer,
    private readonly audit: AuditTrail,
    private readonly limiter: RateLimiter,
    private readonly registry: CredentialResolverRegistry,
    private readonly hasher: PasswordHasher,
    private readonly reauthentication: ReauthenticationLimiter,
    private readonly identity: IdentityRepository,
  ) {}

  async change(actor: ActorContext, sessionId: string, currentPassword: string, newPassword: string): Promise<void> {
    const admitted = await this.reauthentication.admit(actor.userId);
    if (!admitted.allowed) throw new RateLimitedError(admitted.retryAfterSeconds, 'Too many wrong passwords or codes; retry later.');
    assertAcceptablePassword(newPassword, 'newPassword');
    if (!(await this.users.verifyPassword(actor.email, currentPassword))) {
      await this.reauthentication.failed(actor.userId);
      throw new ForbiddenError('The current password is not right.');
    }
    const hash = await this.hasher.hash(newPassword);
    await this.dataSource.transaction(async (manager) => {
      await this.setPassword(manager, actor.userId, hash, sessionId);
      await this.record(manager, actor, 'change');
    });
    this.registry.revoked();
  }

  async requestReset(email: string, ipAddress: string | null): Promise<void> {
    const usage = await this.limiter.hit('password-reset', ipAddress ?? 'unknown', RESET_REQUESTS_PER_ADDRESS);
    if (!usage.allowed) throw new RateLimitedError(usage.resetSeconds);
    void this.sendReset(email.trim().toLowerCase()).catch((error: Error) =>
      this.logger.error(`password reset e-mail not sent: ${error.message}`),
    );
  }

  async reset(token: string, password: string, ipAddress: string | null): Promise<void> {
    const usage = await this.limiter.hit('password-reset-use', ipAddress ?? 'unknown', RESET_USES_PER_ADDRESS);
    if (!usage.allowed) throw new RateLimitedError(usage.resetSeconds);
    assertAcceptablePassword(password, 'password');
    // Looked up before hashing, so a made-up or spent link costs one indexed read, never a hash. The
    // UPDATE below checks again, atomically, and wins if two uses of one link race.
    if (!(await this.identity.passwordResetUsable(token))) throw new NotFoundError('Password reset link');
    const hash = await this.hasher.hash(password);
    await this.dataSource.transaction(async (manager) => {
      const userId = await this.identity.usePasswordReset(manager, token);
      if (!userId) throw new NotFoundError('Password reset link');
      const email = (await this.identity.emailOf(manager, userId))!;
      await this.setPassword(manager, userId, hash);
      // Any other link sent earlier dies with this one.
      await this.identity.usePasswordResetsOf(manager, userId);
      await this.record(manager, { userId, email, ipAddress }, 'reset');
    });
    this.registry.revoked();
  }

  private async sendReset(email: string): Promise<void> {
    const userId = await this.identity.userIdByEmail(this.dataSource.manager, email);
    if (!userId) return;
    const token = randomToken(32);
    const id = await this.identity.createPasswordReset(userId, token, RESET_TTL_SECONDS);
    await this.mailer.send(
      passwordResetEmail({ to: email, link: `${this.config.publicBaseUrl}/dashboard/reset-password/${token}`, resetId: id }),
    );
  }

  /** The new hash, and every session of the user ends but `keepSessionId`. */
  private async setPassword(manager: EntityManager, userId: string, hash: string, keepSessionId?: string): Promise<void> {
    await this.identity.setPasswordHash(manager, userId, hash);
    await this.sessions.endAllOf(userId, manager, keepSessionId);
  }

  private async record(manager: EntityManager, actor: ActorContext, how: 'change' | 'reset'): Promise<void> {
    for (const accountId of await this.identity.accountIdsOf(manager, actor.userId)) {
      await this.audit.record(manager, {
        accountId,
        action: 'password.changed',
        targetType: 'user',
        targetId: actor.userId,
        metadata: { how },
        ...userActor(actor),
      });
    }
  }
}
