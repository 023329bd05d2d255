import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Condition, newId, pageWindow, queryRows, Statement } from '@app/core';
import type { AuditActor, AuditActorType, AuditOrigin } from './audit-actor';

/** The audited actions (docs/audit-log.md). Names are part of the contract: never rename one. */
export const AUDIT_ACTIONS = [
  'session.signed_in',
  'session.sign_in_failed',
  'api_key.created',
  'api_key.revoked',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'connected_app.connected',
  'connected_app.revoked',
  'branding.updated',
  'catalog_rules.updated',
  'topup.created',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'reward.canceled',
  'password.changed',
  'totp.enabled',
  'totp.disabled',
  'webhook_endpoint.updated',
  'invitation.revoked',
  'invitation.resent',
  'account.created',
  'oauth_client.created',
  'fx_conversion.created',
  'alert_settings.updated',
  'webhook_endpoint.replay_requested',
  'approval.decided',
  'approval_settings.updated',
  'reward.recipient_corrected',
  'reminder_settings.updated',
  'reward.created',
  'reward.resent',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntryInput {
  /** Null only for an operator's change that belongs to no account (an OAuth client), which no dashboard shows. */
  accountId: string | null;
  origin: AuditOrigin;
  action: AuditAction;
  targetType: string | null;
  targetId: string | null;
  metadata?: Record<string, unknown>;
}

/** An entry ready to be written by a statement (`AuditLog.insertIn`). */
export interface PreparedAuditEntry {
  row: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  actor: { type: AuditActorType; id: string | null; label: string | null };
  action: string;
  targetType: string | null;
  targetId: string | null;
  metadata: Record<string, unknown>;
  ipAddress: string | null;
  createdAt: Date;
}

interface AuditRow {
  id: string;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  metadata: Record<string, unknown>;
  ip_address: string | null;
  created_at: Date;
}

/**
 * The append-only record of who changed what in an account. `record` writes in the caller's
 * transaction, so an entry exists exactly when its change committed; the database refuses to
 * change or remove an entry afterwards.
 */
@Injectable()
export class AuditLog {
  constructor(private readonly dataSource: DataSource) {}

  async record(manager: EntityManager, entry: AuditEntryInput): Promise<void> {
    const actor = entry.origin.actor;
    const { id, label } = actor.type === 'api_key' || actor.type === 'oauth_app' ? await this.credentialLabel(manager, actor) : actor;
    await queryRows(
      manager,
      `INSERT INTO audit_log (id, account_id, actor_type, actor_id, actor_label, action, target_type, target_id, metadata, ip_address)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::inet)`,
      [
        newId('aud'),
        entry.accountId,
        actor.type,
        id,
        label,
        entry.action,
        entry.targetType,
        entry.targetId,
        JSON.stringify(entry.metadata ?? {}),
        entry.origin.ipAddress,
      ],
    );
  }

  /**
   * The entry as a row, its actor's label read now: for a change made as one statement (a single
   * send), which then writes it with `insertIn`, so the entry commits exactly when the change does.
   */
  async prepare(entry: AuditEntryInput): Promise<PreparedAuditEntry> {
    const actor = entry.origin.actor;
    const { id, label } =
      actor.type === 'api_key' || actor.type === 'oauth_app' ? await this.credentialLabel(this.dataSource.manager, actor) : actor;
    return {
      row: {
        id: newId('aud'),
        account_id: entry.accountId,
        actor_type: actor.type,
        actor_id: id,
        actor_label: label,
        action: entry.action,
        target_type: entry.targetType,
        target_id: entry.targetId,
        metadata: entry.metadata ?? {},
        ip_address: entry.origin.ipAddress,
      },
    };
  }

  /** Adds a prepared entry to `statement`, written only if `onlyIf` holds. */
  insertIn(statement: Statement, entry: PreparedAuditEntry, options: { onlyIf?: Condition } = {}): void {
    statement.insertRows('audit_entry', 'audit_log', [entry.row], options);
  }

  /** An account's entries, newest first, optionally of one action. */
  async list(accountId: string, options: { page: number; pageSize: number; action?: string }): Promise<{ entries: AuditEntry[]; total: number }> {
    const { limit, offset } = pageWindow(options.page, options.pageSize);
    const params: unknown[] = [accountId];
    let where = 'account_id = $1';
    if (options.action) {
      params.push(options.action);
      where += ` AND action = $${params.length}`;
    }
    const [rows, [count]] = await Promise.all([
      this.dataSource.query(
        `SELECT id, actor_type, actor_id, actor_label, action, target_type, target_id, metadata, host(ip_address) AS ip_address, created_at
           FROM audit_log WHERE ${where} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`,
        params,
      ) as Promise<AuditRow[]>,
      this.dataSource.query(`SELECT count(*)::int AS total FROM audit_log WHERE ${where}`, params) as Promise<{ total: number }[]>,
    ]);
    return { entries: rows.map(toEntry), total: count.total };
  }

  /** "name (…last4)" for an API key; the app's name (and id) for an OAuth token. */
  private async credentialLabel(manager: EntityManager, actor: AuditActor): Promise<{ id: string | null; label: string | null }> {
    if (actor.type === 'api_key') {
      const [key] = await queryRows<{ name: string; secret_last4: string }>(
        manager,
        `SELECT name, secret_last4 FROM api_keys WHERE id = $1`,
        [actor.id],
      );
      if (!key) return { id: actor.id, label: actor.label };
      return { id: actor.id, label: key.name ? `${key.name} (…${key.secret_last4})` : `…${key.secret_last4}` };
    }
    const [app] = await queryRows<{ id: string; name: string }>(
      manager,
      actor.id
        ? `SELECT id, name FROM oauth_clients WHERE id = $1`
        : `SELECT cl.id, cl.name FROM oauth_grants g
             JOIN oauth_connections c ON c.id = g.connection_id
             JOIN oauth_clients cl ON cl.id = c.client_id
            WHERE g.id = $1`,
      [actor.id ?? actor.oauthGrantId],
    );
    return app ? { id: app.id, label: app.name } : { id: actor.id, label: actor.label };
  }
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    metadata: row.metadata,
    ipAddress: row.ip_address,
    createdAt: row.created_at,
  };
}
