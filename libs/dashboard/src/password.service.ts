import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PasswordHasher, UserDirectory } from '@app/account';
import { AuditTrail, CredentialResolverRegistry, RateLimiter, ReauthenticationLimiter, SessionStore } from '@app/auth';
import { APP_CONFIG, AppConfig, ForbiddenError, hashSecret, newId, NotFoundError, randomToken, RateLimitedError } from '@app/core';
import { Mailer } from '@app/mail';
import { ActorContext, userActor } from './audit-context';
import { passwordResetEmail } from './dashboard-emails';
import { accountIdsOf } from './memberships';
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
    const [usable]: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`,
      [hashSecret(token)],
    );
    if (!usable) throw new NotFoundError('Password reset link');
    const hash = await this.hasher.hash(password);
    await this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        `UPDATE password_resets SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
        [hashSecret(token)],
      )) as [{ user_id: string }[], number];
      if (!rows[0]) throw new NotFoundError('Password reset link');
      const userId = rows[0].user_id;
      const [user]: { email: string }[] = await manager.query(`SELECT email FROM users WHERE id = $1`, [userId]);
      await this.setPassword(manager, userId, hash);
      // Any other link sent earlier dies with this one.
      await manager.query(`UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
      await this.record(manager, { userId, email: user.email, ipAddress }, 'reset');
    });
    this.registry.revoked();
  }

  private async sendReset(email: string): Promise<void> {
    const [user]: { id: string }[] = await this.dataSource.query(`SELECT id FROM users WHERE email = $1`, [email]);
    if (!user) return;
    const token = randomToken(32);
    const id = newId('pwr');
    await this.dataSource.query(
      `INSERT INTO password_resets (id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [id, user.id, hashSecret(token), RESET_TTL_SECONDS],
    );
    await this.mailer.send(
      passwordResetEmail({ to: email, link: `${this.config.publicBaseUrl}/dashboard/reset-password/${token}`, resetId: id }),
    );
  }

  /** The new hash, and every session of the user ends but `keepSessionId`. */
  private async setPassword(manager: EntityManager, userId: string, hash: string, keepSessionId?: string): Promise<void> {
    await manager.query(`UPDATE users SET password_hash = $2 WHERE id = $1`, [userId, hash]);
    await this.sessions.endAllOf(userId, manager, keepSessionId);
  }

  private async record(manager: EntityManager, actor: ActorContext, how: 'change' | 'reset'): Promise<void> {
    for (const accountId of await accountIdsOf(manager, actor.userId)) {
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
