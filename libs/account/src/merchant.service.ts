import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { BadRequestError, controlCharacterProblem, newId } from '@app/core';
import { AccountEntity } from './entities/account.entity';
import { MembershipEntity } from './entities/membership.entity';
import { UserEntity } from './entities/user.entity';
import { PasswordHasher } from './password-hasher';

export interface CreateMerchantInput {
  name: string;
  email: string;
  password: string;
  currency?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Creates accounts with their owner: the operator CLI's merchant:create. */
@Injectable()
export class MerchantService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditLog,
  ) {}

  /**
   * An e-mail that already has a user reuses that user (who becomes owner of the new account too);
   * the given password is then ignored, since the operator cannot reset a person's password here.
   * `origin`: the operator CLI, recorded in the new account's audit log.
   */
  async createMerchant(input: CreateMerchantInput, origin?: AuditOrigin): Promise<{ accountId: string; userId: string }> {
    const name = input.name.trim();
    const email = input.email.trim().toLowerCase();
    const currency = (input.currency ?? 'USD').toUpperCase();
    const issues = [];
    if (name.length < 1 || name.length > 100) issues.push({ path: 'name', message: 'must be 1 to 100 characters' });
    const nameProblem = controlCharacterProblem(name);
    if (nameProblem) issues.push({ path: 'name', message: nameProblem });
    if (!EMAIL.test(email) || email.length > 254 || controlCharacterProblem(email)) issues.push({ path: 'email', message: 'must be an e-mail address' });
    if (input.password.length < 10) issues.push({ path: 'password', message: 'must be at least 10 characters' });
    if (!/^[A-Z]{3}$/.test(currency)) issues.push({ path: 'currency', message: 'must be a 3-letter currency code' });
    if (issues.length) throw new BadRequestError(issues);

    const passwordHash = await this.hasher.hash(input.password);
    return this.dataSource.transaction(async (manager) => {
      // ON CONFLICT DO NOTHING: whoever inserted the e-mail first, the next line reads that one row.
      await manager
        .createQueryBuilder()
        .insert()
        .into(UserEntity)
        .values({ id: newId('usr'), email, passwordHash })
        .orIgnore()
        .execute();
      const user = await manager.findOneByOrFail(UserEntity, { email });
      const account = manager.create(AccountEntity, { id: newId('acct'), name, currency });
      await manager.insert(AccountEntity, account);
      await manager.insert(MembershipEntity, { accountId: account.id, userId: user.id, role: 'owner' });
      if (origin) {
        await this.audit.record(manager, {
          accountId: account.id,
          origin,
          action: 'account.created',
          targetType: 'account',
          targetId: account.id,
          metadata: { name, currency, owner: { userId: user.id, email } },
        });
      }
      return { accountId: account.id, userId: user.id };
    });
  }
}
