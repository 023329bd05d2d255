import type { EntityManager } from 'typeorm';

export type AuditAction =
  | 'session.signed_in'
  | 'session.sign_in_failed'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'member.invited'
  | 'member.joined'
  | 'member.role_changed'
  | 'member.removed'
  | 'connected_app.connected'
  | 'connected_app.revoked'
  | 'invitation.revoked'
  | 'password.changed'
  | 'totp.enabled'
  | 'totp.disabled';

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
