import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Condition, Statement } from '@app/core';
import type { MailJobEntity } from '../entities/mail-job.entity';
import { LeasedMail, MAIL_LEASE } from './mail-lease';

/** A new job; `channel` defaults to the e-mail. */
type NewMailJob = Pick<MailJobEntity, 'id' | 'rewardId' | 'kind'> & { channel?: MailJobEntity['channel'] };

/**
 * The delivery jobs of rewards (`mail_jobs`: e-mails and, `channel` sms, text messages): the statements that write them, besides their lease's
 * (MailLease), and the sweeper's read of lost jobs. A job is written PENDING with the change that
 * asks for it (a send, a resend); the queue job only carries its id (docs/rewards.md, E-mail and
 * durable jobs).
 */
@Injectable()
export class MailJobRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds new PENDING jobs to `statement` (the send's), done only if `onlyIf` holds. */
  insertIn(statement: Statement, jobs: NewMailJob[], options: { onlyIf?: Condition } = {}): void {
    statement.insertRows(
      'new_mail_jobs',
      'mail_jobs',
      jobs.map((job) => ({ id: job.id, reward_id: job.rewardId, kind: job.kind, channel: job.channel ?? 'email', status: 'PENDING' })),
      options,
    );
  }

  /** A new PENDING job, in the caller's transaction (a resend). */
  async insert(manager: EntityManager, job: NewMailJob): Promise<void> {
    await manager.query(`INSERT INTO mail_jobs (id, reward_id, kind, channel, status) VALUES ($1, $2, $3, $4, 'PENDING')`, [
      job.id,
      job.rewardId,
      job.kind,
      job.channel ?? 'email',
    ]);
  }

  /** The last attempt failed: FAILED, with why, and no lease (in `manager`'s transaction when given). */
  async markFailed(mail: Pick<LeasedMail, 'id'>, lastError: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `UPDATE mail_jobs SET status = 'FAILED', ${MAIL_LEASE.end}, last_error = $2 WHERE id = $1 AND status = 'PENDING'`,
      [mail.id, lastError.slice(0, 500)],
    );
  }

  /**
   * PENDING jobs to enqueue, oldest first: those older than `orphanAfter` with no retry planned (their
   * queue job may never have been enqueued, or was lost), and those whose retry after a temporary
   * refusal is due at `now` (the service's clock; docs/delivery.md).
   */
  async pendingToSweep(orphanAfter: string, limit: number, now: Date): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM mail_jobs
        WHERE status = 'PENDING'
          AND ((next_attempt_at IS NULL AND created_at < now() - $1::interval) OR next_attempt_at <= $3)
        ORDER BY created_at LIMIT $2`,
      [orphanAfter, limit, now],
    );
    return rows.map((row) => row.id);
  }
}
