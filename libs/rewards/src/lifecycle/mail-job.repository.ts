import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Condition, queryRows, Statement } from '@app/core';
import type { MailJobEntity } from '../entities/mail-job.entity';
import type { LeasedMail } from './mail-lease';

type NewMailJob = Pick<MailJobEntity, 'id' | 'rewardId' | 'kind'>;

/**
 * The e-mail jobs of rewards (`mail_jobs`): every statement that writes them, and the sweeper's
 * reads. A job is written PENDING with the change that asks for it (a send, a resend); the queue job
 * only carries its id (docs/rewards.md, E-mail and durable jobs).
 */
@Injectable()
export class MailJobRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds new PENDING jobs to `statement` (the send's), done only if `onlyIf` holds. */
  insertIn(statement: Statement, jobs: NewMailJob[], options: { onlyIf?: Condition } = {}): void {
    statement.insertRows(
      'new_mail_jobs',
      'mail_jobs',
      jobs.map((job) => ({ id: job.id, reward_id: job.rewardId, kind: job.kind, status: 'PENDING' })),
      options,
    );
  }

  /** A new PENDING job, in the caller's transaction (a resend). */
  async insert(manager: EntityManager, job: NewMailJob): Promise<void> {
    await manager.query(`INSERT INTO mail_jobs (id, reward_id, kind, status) VALUES ($1, $2, $3, 'PENDING')`, [job.id, job.rewardId, job.kind]);
  }

  /**
   * The mail lease (MailLease): takes a PENDING job that no live run holds, counting the attempt.
   * Null when the job is settled or another run's lease is still live.
   */
  async takeLease(id: string, leaseMs: number): Promise<LeasedMail | null> {
    const [row] = await queryRows<{ id: string; reward_id: string; attempts: number }>(
      this.dataSource.manager,
      `UPDATE mail_jobs SET attempts = attempts + 1, leased_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 AND status = 'PENDING' AND (leased_until IS NULL OR leased_until < clock_timestamp())
        RETURNING id, reward_id, attempts`,
      [id, leaseMs],
    );
    return row ? { id: row.id, rewardId: row.reward_id, attempt: row.attempts } : null;
  }

  /** Moves the lease of attempt `mail.attempt` on, if that attempt still holds it. */
  async renewLease(mail: LeasedMail, leaseMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE mail_jobs SET leased_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND attempts = $2 AND status = 'PENDING' AND leased_until IS NOT NULL`,
      [mail.id, mail.attempt, leaseMs],
    );
  }

  /** Gives up the lease of attempt `mail.attempt` after a failed send, noting why; the job stays PENDING for the retry. */
  async releaseLease(mail: LeasedMail, lastError: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE mail_jobs SET leased_until = NULL, last_error = $3
        WHERE id = $1 AND attempts = $2 AND status = 'PENDING' AND leased_until IS NOT NULL`,
      [mail.id, mail.attempt, lastError.slice(0, 500)],
    );
  }

  /** The server accepted the message: SENT, whoever holds the lease now. */
  async markSent(mail: LeasedMail, sentAt: Date): Promise<void> {
    await this.dataSource.query(`UPDATE mail_jobs SET status = 'SENT', sent_at = $2, last_error = NULL WHERE id = $1 AND status = 'PENDING'`, [
      mail.id,
      sentAt,
    ]);
  }

  /** The last attempt failed: FAILED, with why, and no lease. */
  async markFailed(mail: LeasedMail, lastError: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE mail_jobs SET status = 'FAILED', leased_until = NULL, last_error = $2 WHERE id = $1 AND status = 'PENDING'`,
      [mail.id, lastError.slice(0, 500)],
    );
  }

  /** PENDING jobs older than `orphanAfter`, oldest first: their queue job may never have been enqueued, or was lost. */
  async pendingToSweep(orphanAfter: string, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM mail_jobs WHERE status = 'PENDING' AND created_at < now() - $1::interval ORDER BY created_at LIMIT $2`,
      [orphanAfter, limit],
    );
    return rows.map((row) => row.id);
  }

  /** PENDING jobs whose lease ran out: the worker sending them died (a live one renews every few seconds). */
  expiredLeases(limit: number): Promise<{ id: string; attempts: number }[]> {
    return this.dataSource.query(
      `SELECT id, attempts FROM mail_jobs WHERE status = 'PENDING' AND leased_until < now() ORDER BY leased_until LIMIT $1`,
      [limit],
    );
  }
}
