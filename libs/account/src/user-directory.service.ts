import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { AccountEntity } from './entities/account.entity';
import { MembershipEntity, MembershipRole } from './entities/membership.entity';
import { UserEntity } from './entities/user.entity';
import { PasswordHasher } from './password-hasher';

export interface MemberAccount {
  id: string;
  name: string;
  role: MembershipRole;
}

/** People signing in (OAuth consent now, the dashboard later) and the accounts they belong to. */
@Injectable()
export class UserDirectory {
  // Verified against when the e-mail is unknown, so a wrong e-mail takes as long as a wrong password.
  private decoyHash?: Promise<string>;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(MembershipEntity) private readonly memberships: Repository<MembershipEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly hasher: PasswordHasher,
  ) {}

  /** The user whose e-mail and password these are, or null; never says which of the two was wrong. */
  async verifyPassword(email: string, password: string): Promise<{ id: string; email: string } | null> {
    const user = await this.users
      .createQueryBuilder('user')
      .addSelect('user.passwordHash')
      .where('user.email = :email', { email: email.trim().toLowerCase() })
      .getOne();
    const valid = await this.hasher.verify(password, user?.passwordHash ?? (await this.decoy()));
    return user && valid ? { id: user.id, email: user.email } : null;
  }

  private decoy(): Promise<string> {
    // Forgotten if it failed (refused as busy), so the next sign-in computes it again.
    this.decoyHash ??= this.hasher.hash('decoy password, never matches').catch((error: unknown) => {
      this.decoyHash = undefined;
      throw error;
    });
    return this.decoyHash;
  }

  async emailOf(userId: string): Promise<string | null> {
    return (await this.users.findOneBy({ id: userId }))?.email ?? null;
  }

  /** The accounts where the user holds one of `roles`, by name. */
  async accountsOf(userId: string, roles: readonly MembershipRole[]): Promise<MemberAccount[]> {
    const memberships = await this.memberships.findBy({ userId, role: In([...roles]) });
    if (memberships.length === 0) return [];
    const accounts = await this.accounts.findBy({ id: In(memberships.map((m) => m.accountId)) });
    const roleOf = new Map(memberships.map((m) => [m.accountId, m.role]));
    return accounts
      .map((account) => ({ id: account.id, name: account.name, role: roleOf.get(account.id)! }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Who gets an account's notices (low-balance alerts, docs/alerts.md): the e-mails of its members
   * holding one of `roles`, sorted, and the account's name; null when the account is gone.
   */
  async noticeRecipients(accountId: string, roles: readonly MembershipRole[]): Promise<{ accountName: string; emails: string[] } | null> {
    const account = await this.accounts.findOneBy({ id: accountId });
    if (!account) return null;
    const memberships = await this.memberships.findBy({ accountId, role: In([...roles]) });
    const users = memberships.length ? await this.users.findBy({ id: In(memberships.map((m) => m.userId)) }) : [];
    return { accountName: account.name, emails: users.map((user) => user.email).sort() };
  }
}
