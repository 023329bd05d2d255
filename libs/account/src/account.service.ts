import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '@app/core';
import { AccountEntity } from './entities/account.entity';
import { UpdateBrandingDto } from './dto/account.dto';

@Injectable()
export class AccountService {
  constructor(@InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>) {}

  async get(accountId: string): Promise<AccountEntity> {
    const account = await this.accounts.findOneBy({ id: accountId });
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  async updateBranding(accountId: string, patch: UpdateBrandingDto): Promise<AccountEntity> {
    const changes: Partial<AccountEntity> = {};
    // Only keys present in the body change; an explicit null clears the field.
    if (patch.senderName !== undefined) changes.senderName = patch.senderName;
    if (patch.logoUrl !== undefined) changes.logoUrl = patch.logoUrl;
    if (patch.brandColor !== undefined) changes.brandColor = patch.brandColor?.toUpperCase() ?? null;
    if (Object.keys(changes).length > 0) await this.accounts.update({ id: accountId }, changes);
    return this.get(accountId);
  }
}
