import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, bigintCents, queryRows } from '@app/core';
import { Mailer, renderRewardEmail } from '@app/mail';
import { MailJobEntity } from './entities/mail-job.entity';
import { RewardEntity } from './entities/reward.entity';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { redemptionUrl } from './reward-drafts';
import { emailsSent } from './reward-metrics';

/**
 * Sends a reward e-mail. Every e-mail of a reward (the first and each resend) carries the reward's
 * one link, the create response's (docs/redemption.md, One link), read back from its sealed copy.
 * A crash between sending and marking SENT sends the e-mail again on retry (at least once, never lost).
 */
/** How long a claimed e-mail stays with its worker without a renewal. */
export const MAIL_LEASE_MS = 10_000;
/** How often a worker sending an e-mail renews its lease. */
export const MAIL_LEASE_RENEW_MS = 3_000;

@Injectable()
export class RewardMailService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly mailer: Mailer,
    private readonly lifecycle: RewardLifecycle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(mailJobId: string, finalAttempt: boolean): Promise<'sent' | 'skipped'> {
    const [claimed] = await queryRows<{ reward_id: string; attempts: number }>(
      this.dataSource.manager,
      // The lease keeps a duplicate job (a stalled job re-run, the sweeper) from sending it twice at once.
      // It is short and renewed while the send is alive, so a dead worker's e-mail is taken over
      // within seconds (the sweeper enqueues it once the lease has run out; docs/operations.md, Leases).
      `UPDATE mail_jobs SET attempts = attempts + 1, leased_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 AND status = 'PENDING' AND (leased_until IS NULL OR leased_until < clock_timestamp())
        RETURNING reward_id, attempts`,
      [mailJobId, MAIL_LEASE_MS],
    );
    if (!claimed) return 'skipped';
    const heartbeat = this.renewWhileAlive(mailJobId, claimed.attempts);
    try {
      return await this.deliver(mailJobId, claimed.reward_id, finalAttempt);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Moves the lease on every MAIL_LEASE_RENEW_MS while this attempt is alive; only this attempt's
   * lease (same attempt number, still PENDING), so a renewal can never take a job back from a
   * worker that took it over.
   */
  private renewWhileAlive(mailJobId: string, attempt: number): NodeJS.Timeout {
    const timer = setInterval(() => {
      this.dataSource
        .query(
          `UPDATE mail_jobs SET leased_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
            WHERE id = $1 AND attempts = $2 AND status = 'PENDING' AND leased_until IS NOT NULL`,
          [mailJobId, attempt, MAIL_LEASE_MS],
        )
        .catch(() => undefined); // a missed renewal only lets the lease run out sooner; the send goes on
    }, MAIL_LEASE_RENEW_MS);
    timer.unref();
    return timer;
  }

  private async deliver(mailJobId: string, rewardId: string, finalAttempt: boolean): Promise<'sent'> {
    try {
      const row = await this.readForMail(rewardId);
      const token = await this.lifecycle.redemptionToken({ id: row.id, accountId: row.account_id }, row.token_sealed);
      const senderName = row.sender_name ?? row.account_name;
      const email = renderRewardEmail({
        senderName,
        logoUrl: row.logo_url,
        brandColor: row.brand_color,
        recipientFirstName: row.recipient_first_name,
        message: row.message,
        valueCents: bigintCents.from(row.face_value_cents) as number,
        currency: row.currency,
        type: row.type,
        brandName: row.brand_name,
        link: redemptionUrl(this.config.publicBaseUrl, token),
        expiresAt: row.expires_at,
      });
      await this.mailer.send({ fromName: senderName, to: row.recipient_email, reference: `${row.id}-${mailJobId}`, ...email });
      // Plain SQL rather than manager.update, which builds an UpdateQueryBuilder per e-mail (the same statement).
      await this.dataSource.query(`UPDATE mail_jobs SET status = 'SENT', sent_at = $2, last_error = NULL WHERE id = $1 AND status = 'PENDING'`, [
        mailJobId,
        new Date(),
      ]);
      emailsSent.inc({ outcome: 'sent' });
      return 'sent';
    } catch (error) {
      emailsSent.inc({ outcome: finalAttempt ? 'failed' : 'retrying' });
      await this.dataSource.manager.update(
        MailJobEntity,
        { id: mailJobId, status: 'PENDING' },
        { status: finalAttempt ? 'FAILED' : 'PENDING', leasedUntil: null, lastError: String((error as Error).message).slice(0, 500) },
      );
      throw error;
    }
  }

  /**
   * What the e-mail shows, in one read: the reward, its account's branding and the sealed link token
   * (none for a reward sent before rewards kept one: redemptionToken then makes it). One statement
   * instead of three entity lookups, each of which built a TypeORM query on the worker thread.
   */
  private async readForMail(rewardId: string): Promise<MailRow> {
    const [row] = await queryRows<MailRow>(
      this.dataSource.manager,
      `SELECT r.id, r.account_id, r.type, r.face_value_cents, r.currency, r.recipient_email, r.recipient_first_name,
              r.message, r.brand_name, r.expires_at,
              a.name AS account_name, a.sender_name, a.logo_url, a.brand_color, l.token_sealed
         FROM rewards r
         JOIN accounts a ON a.id = r.account_id
         LEFT JOIN redemption_links l ON l.reward_id = r.id AND l.token_sealed IS NOT NULL
        WHERE r.id = $1`,
      [rewardId],
    );
    if (!row) throw new Error(`reward ${rewardId} of the e-mail job not found`);
    return row;
  }
}

interface MailRow {
  id: string;
  account_id: string;
  type: RewardEntity['type'];
  face_value_cents: string;
  currency: string;
  recipient_email: string;
  recipient_first_name: string;
  message: string | null;
  brand_name: string | null;
  expires_at: Date | null;
  account_name: string;
  sender_name: string | null;
  logo_url: string | null;
  brand_color: string | null;
  token_sealed: string | null;
}
