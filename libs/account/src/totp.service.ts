import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { generateSecret, generateURI, verify } from 'otplib';
import { DataSource, EntityManager } from 'typeorm';
import { AuditTrail, ReauthenticationLimiter } from '@app/auth';
import { Clock, KeyRing, RateLimitedError, sealContext, SealedColumn, ValidationError } from '@app/core';
import { IdentityRepository, TotpState } from './identity/identity.repository';
import type { IdentityActor } from './identity/team.service';

const ISSUER = 'Rewards';
/** A code of the step before or after the current one is accepted too (clock drift, slow typing). */
const TOLERANCE_SECONDS = 30;

/** Associated data of a user's sealed TOTP secret (a user may belong to several accounts: the user id alone). */
export function totpSecretContext(userId: string): string {
  return sealContext('users.totp_secret', userId);
}

/** The TOTP secret column, for `encryption:rotate`. */
export const TOTP_SEALED_COLUMNS: SealedColumn[] = [
  { table: 'users', column: 'totp_secret', key: ['id'], context: (row) => totpSecretContext(row.id) },
];

/**
 * Two-factor sign-in with TOTP (RFC 6238: SHA-1, 30-second steps, 6 digits). The secret lives in
 * users.totp_secret only, pending until a first code confirms it. Each accepted code records its
 * time step, and a code of that step or an earlier one is refused, so a code seen over someone's
 * shoulder is worthless once used (docs/dashboard.md). The secret is sealed under the key ring for
 * its user (docs/secrets.md): a database copy cannot mint codes. It lives with the users it belongs to,
 * since both sign-ins ask for it: the dashboard's and the OAuth authorize pages' (docs/oauth.md).
 * Wrong codes to turn it off count against the user's re-authentication failures, with wrong current
 * passwords (docs/dashboard.md). The state's SQL is the identity repository's.
 */
@Injectable()
export class TotpService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    private readonly keyRing: KeyRing,
    private readonly reauthentication: ReauthenticationLimiter,
    private readonly clock: Clock,
    private readonly identity: IdentityRepository,
  ) {}

  isEnabled(userId: string): Promise<boolean> {
    return this.identity.totpEnabled(userId);
  }

  /** A new pending secret (replacing any earlier pending one); refused while two-factor is on. */
  async begin(userId: string, email: string): Promise<{ secret: string; otpauthUrl: string }> {
    const secret = generateSecret();
    const stored = await this.identity.setPendingTotpSecret(userId, this.keyRing.encrypt(secret, totpSecretContext(userId)));
    if (!stored) throw new ValidationError('Two-factor sign-in is already on; disable it first.');
    return { secret, otpauthUrl: generateURI({ issuer: ISSUER, label: email, secret }) };
  }

  async confirm(actor: IdentityActor, code: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.identity.lockTotp(manager, actor.userId);
      if (!row.totp_secret || row.totp_enabled_at) throw new ValidationError('Start the two-factor set-up first.');
      if (!(await this.consume(manager, actor.userId, row, code))) throw new ValidationError('The code is not right.');
      await this.identity.enableTotp(manager, actor.userId);
      await this.record(manager, actor, 'totp.enabled');
    });
  }

  async disable(actor: IdentityActor, code: string): Promise<void> {
    const admitted = await this.reauthentication.admit(actor.userId);
    if (!admitted.allowed) throw new RateLimitedError(admitted.retryAfterSeconds, 'Too many wrong passwords or codes; retry later.');
    const disabled = await this.dataSource.transaction(async (manager) => {
      const row = await this.identity.lockTotp(manager, actor.userId);
      if (!row.totp_enabled_at) throw new ValidationError('Two-factor sign-in is not on.');
      if (!(await this.consume(manager, actor.userId, row, code))) return false;
      await this.identity.disableTotp(manager, actor.userId);
      await this.record(manager, actor, 'totp.disabled');
      return true;
    });
    if (!disabled) {
      await this.reauthentication.failed(actor.userId);
      throw new ValidationError('The code is not right.');
    }
  }

  /** At sign-in: whether `code` is a valid, unused code of the user's enabled secret (using it up). */
  async verifyAtSignIn(userId: string, code: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.identity.lockTotp(manager, userId);
      return !!row.totp_enabled_at && this.consume(manager, userId, row, code);
    });
  }

  /** `row` was read locked, so two requests with the same code cannot both see its step as unused. */
  private async consume(manager: EntityManager, userId: string, row: TotpState, code: string): Promise<boolean> {
    if (!row.totp_secret || !/^\d{6}$/.test(code)) return false;
    const secret = this.keyRing.decrypt(row.totp_secret, totpSecretContext(userId));
    const epoch = Math.floor(this.clock.now().getTime() / 1000);
    const result = await verify({ secret, token: code, epoch, epochTolerance: TOLERANCE_SECONDS });
    if (!result.valid || !('timeStep' in result)) return false;
    if (row.totp_last_step !== null && result.timeStep <= Number(row.totp_last_step)) return false;
    await this.identity.setTotpLastStep(manager, userId, result.timeStep);
    return true;
  }

  private async record(manager: EntityManager, actor: IdentityActor, action: 'totp.enabled' | 'totp.disabled'): Promise<void> {
    for (const accountId of await this.identity.accountIdsOf(manager, actor.userId)) {
      await this.audit.record(manager, {
        accountId,
        action,
        targetType: 'user',
        targetId: actor.userId,
        actor: { type: 'user', id: actor.userId, label: actor.email },
        ipAddress: actor.ipAddress,
      });
    }
  }
}
