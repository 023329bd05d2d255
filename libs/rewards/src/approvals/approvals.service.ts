import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountService } from '@app/account';
import { AuditOrigin } from '@app/audit';
import type { Principal } from '@app/auth';
import { ForbiddenError, queryRows } from '@app/core';
import type { RewardView } from '../dto/reward.dto';
import { ApprovalDecider, RewardLifecycle } from '../lifecycle/reward-lifecycle.service';
import { RewardRepository } from '../lifecycle/reward.repository';
import { RewardsService } from '../rewards.service';

/** Most sends a pending list shows at once, oldest first. */
const PENDING_LIST_LIMIT = 200;

/**
 * Four-eyes approvals (docs/controls.md, Approvals): the account's threshold, the sends waiting
 * for a decision and the decisions, which only a dashboard admin or owner other than the sender makes.
 */
@Injectable()
export class Approvals {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lifecycle: RewardLifecycle,
    private readonly repository: RewardRepository,
    private readonly rewards: RewardsService,
    private readonly accounts: AccountService,
  ) {}

  settings(accountId: string): Promise<{ thresholdCents: number | null }> {
    return this.accounts.approvalThreshold(accountId).then((thresholdCents) => ({ thresholdCents }));
  }

  /** The threshold is the account's (libs/account writes it, audited). */
  async updateSettings(accountId: string, thresholdCents: number | null, origin: AuditOrigin): Promise<{ thresholdCents: number | null }> {
    await this.accounts.setApprovalThreshold(accountId, thresholdCents, origin);
    return { thresholdCents };
  }

  /** The labels of the senders of `views` (a user's e-mail, a key's or an app's name), by their id. */
  async senderLabels(views: RewardView[]): Promise<Map<string, string>> {
    const ids = [...new Set(views.map((v) => v.reward.createdById).filter((id): id is string => id !== null))];
    if (ids.length === 0) return new Map();
    const rows = await queryRows<{ id: string; label: string }>(
      this.dataSource.manager,
      `SELECT id, email AS label FROM users WHERE id = ANY($1::text[])
       UNION ALL SELECT id, name FROM api_keys WHERE id = ANY($1::text[])
       UNION ALL SELECT id, name FROM oauth_clients WHERE id = ANY($1::text[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.label]));
  }

  /** The account's sends waiting for a decision, oldest first. */
  async pending(accountId: string): Promise<RewardView[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      this.repository.pageOfViews.sql(
        `SELECT t.* FROM rewards t WHERE t.account_id = $1 AND t.approval_status = 'PENDING' AND t.status = 'CREATED' ORDER BY t.created_at LIMIT ${PENDING_LIST_LIMIT}`,
        'p.created_at',
      ),
      [accountId],
    );
    return this.repository.pageOfViews.map(rows);
  }

  async pendingCount(accountId: string): Promise<number> {
    const [row] = await queryRows<{ count: number }>(
      this.dataSource.manager,
      `SELECT count(*)::int AS count FROM rewards WHERE account_id = $1 AND approval_status = 'PENDING' AND status = 'CREATED'`,
      [accountId],
    );
    return row.count;
  }

  async decide(principal: Principal, id: string, decision: 'approve' | 'reject', origin: AuditOrigin): Promise<RewardView> {
    const decider = deciderOf(principal, origin);
    if (decision === 'approve') await this.lifecycle.approve(principal.accountId, id, decider);
    else await this.lifecycle.reject(principal.accountId, id, decider);
    return this.rewards.get(principal.accountId, id);
  }
}

/** Only a signed-in admin or owner decides (403 otherwise); keys and tokens never reach here. */
function deciderOf(principal: Principal, origin: AuditOrigin): ApprovalDecider {
  const user = principal.user;
  if (principal.credentialKind !== 'session' || !user) throw new ForbiddenError('Only a dashboard admin or owner can decide approvals.');
  if (user.role !== 'admin' && user.role !== 'owner') throw new ForbiddenError('Only an admin or owner can decide approvals.');
  return { userId: user.id, email: user.email, origin };
}
