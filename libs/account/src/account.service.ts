import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { NotFoundError } from '@app/core';
import { AccountEntity } from './entities/account.entity';
import { UpdateBrandingDto } from './dto/account.dto';

@Injectable()
export class AccountService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly audit: AuditLog,
  ) {}

  async get(accountId: string): Promise<AccountEntity> {
    const account = await this.accounts.findOneBy({ id: accountId });
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  /** Audited with the fields the request changed, before and after. */
  async updateBranding(accountId: string, patch: UpdateBrandingDto, origin: AuditOrigin): Promise<AccountEntity> {
    const changes: Partial<AccountEntity> = {};
    // Only keys present in the body change; an explicit null clears the field.
    if (patch.senderName !== undefined) changes.senderName = patch.senderName;
    if (patch.logoUrl !== undefined) changes.logoUrl = patch.logoUrl;
    if (patch.brandColor !== undefined) changes.brandColor = patch.brandColor?.toUpperCase() ?? null;
    if (Object.keys(changes).length > 0) {
      await this.dataSource.transaction(async (manager) => {
        const before = await manager.findOneByOrFail(AccountEntity, { id: accountId });
        await manager.update(AccountEntity, { id: accountId }, changes);
        const fields = Object.keys(changes) as (keyof typeof changes)[];
        await this.audit.record(manager, {
          accountId,
          origin,
          action: 'branding.updated',
          targetType: 'account',
          targetId: accountId,
          metadata: {
            before: Object.fromEntries(fields.map((field) => [field, before[field]])),
            after: changes,
          },
        });
      });
    }
    return this.get(accountId);
  }

  /** The send value (primary currency) at or above which a send waits for approval (docs/controls.md); null: none. */
  async approvalThreshold(accountId: string): Promise<number | null> {
    return (await this.get(accountId)).approvalThresholdCents ?? null;
  }

  /** Replaces the approval threshold, audited (`approval_settings.updated`) in the same transaction. */
  async setApprovalThreshold(accountId: string, thresholdCents: number | null, origin: AuditOrigin): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // Locked first: concurrent changes take turns, so each entry's previous value is the one it replaced.
      const before = await manager.findOneOrFail(AccountEntity, { where: { id: accountId }, lock: { mode: 'pessimistic_write' } });
      await manager.update(AccountEntity, { id: accountId }, { approvalThresholdCents: thresholdCents });
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'approval_settings.updated',
        targetType: 'account',
        targetId: accountId,
        metadata: { thresholdCents, previousThresholdCents: before.approvalThresholdCents ?? null },
      });
    });
  }

  /** The account's reward reminder settings (docs/delivery.md, Reminders). */
  async reminderSettings(accountId: string): Promise<ReminderSettings> {
    const account = await this.get(accountId);
    return { afterDays: account.reminderAfterDays.map(Number), beforeExpiryDays: account.reminderBeforeExpiryDays ?? null };
  }

  /**
   * Replaces the reminder settings in the caller's transaction (the rewards lib re-arms the account's
   * open rewards in the same one), audited (`reminder_settings.updated`, before and after). `now` is
   * the service's clock: reminders that fell due before it are not sent.
   */
  async setReminderSettings(manager: EntityManager, accountId: string, settings: ReminderSettings, now: Date, origin: AuditOrigin): Promise<void> {
    // Locked first: concurrent changes take turns, so each entry's "before" is the one it replaced.
    const before = await manager.findOneOrFail(AccountEntity, { where: { id: accountId }, lock: { mode: 'pessimistic_write' } });
    await manager.update(
      AccountEntity,
      { id: accountId },
      { reminderAfterDays: settings.afterDays, reminderBeforeExpiryDays: settings.beforeExpiryDays, reminderSettingsAt: now },
    );
    await this.audit.record(manager, {
      accountId,
      origin,
      action: 'reminder_settings.updated',
      targetType: 'account',
      targetId: accountId,
      metadata: {
        before: { afterDays: before.reminderAfterDays.map(Number), beforeExpiryDays: before.reminderBeforeExpiryDays ?? null },
        after: settings,
      },
    });
  }
}

/** An account's reward reminders: days after delivery (ascending, up to 3) and days before expiry. */
export interface ReminderSettings {
  afterDays: number[];
  beforeExpiryDays: number | null;
}
