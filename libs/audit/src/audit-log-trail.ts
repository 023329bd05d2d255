import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditEntry, AuditTrail } from '@app/auth';
import { AuditLog } from './audit-log.service';

/** The dashboard's audited actions, written to the audit log in the caller's transaction. */
@Injectable()
export class AuditLogTrail extends AuditTrail {
  constructor(private readonly log: AuditLog) {
    super();
  }

  record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    return this.log.record(manager, {
      accountId: entry.accountId,
      origin: { actor: { type: entry.actor.type, id: entry.actor.id, label: entry.actor.label ?? null }, ipAddress: entry.ipAddress ?? null },
      action: entry.action,
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      metadata: entry.metadata,
    });
  }
}
