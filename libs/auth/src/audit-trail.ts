import type { EntityManager } from 'typeorm';
import type { AuditAction } from '@app/audit';

// The one list of audited actions is the audit log's (libs/audit); a type-only import, so no cycle at run time.
export type { AuditAction } from '@app/audit';

export interface AuditEntry {
  accountId: string;
  actor: { type: 'user' | 'api_key' | 'oauth_app' | 'operator'; id: string; label?: string };
  action: AuditAction;
  targetType?: string;
  targetId?: string;
  metadata?: Record<string, unknown>;
  ipAddress?: string | null;
}

/**
 * Where audited actions are written. `record` runs inside the transaction of the change it
 * describes (hence the EntityManager), so an action is recorded if and only if it happened.
 * The audit log module (libs/audit) provides it; there is no do-nothing default, so a module that
 * audits without importing the audit log fails at start instead of silently recording nothing.
 */
export abstract class AuditTrail {
  abstract record(manager: EntityManager, entry: AuditEntry): Promise<void>;
}
