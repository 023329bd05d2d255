import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountService } from '@app/account';
import { APP_CONFIG, AppConfig, emailsSent, queryRows } from '@app/core';
import { Mailer, renderRewardEmail } from '@app/mail';
import { MailJobEntity } from './entities/mail-job.entity';
import { RewardEntity } from './entities/reward.entity';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { redemptionUrl } from './reward-drafts';

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
    private readonly accounts: AccountService,
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
      const reward = await this.dataSource.manager.findOneByOrFail(RewardEntity, { id: rewardId });
      const account = await this.accounts.get(reward.accountId);
      const token = await this.lifecycle.redemptionToken(reward);
      const senderName = account.senderName ?? account.name;
      const email = renderRewardEmail({
        senderName,
        logoUrl: account.logoUrl,
        brandColor: account.brandColor,
        recipientFirstName: reward.recipientFirstName,
        message: reward.message,
        valueCents: reward.faceValueCents,
        currency: reward.currency,
        type: reward.type,
        brandName: reward.brandName,
        link: redemptionUrl(this.config.publicBaseUrl, token),
        expiresAt: reward.expiresAt,
      });
      await this.mailer.send({ fromName: senderName, to: reward.recipientEmail, reference: `${reward.id}-${mailJobId}`, ...email });
      await this.dataSource.manager.update(MailJobEntity, { id: mailJobId, status: 'PENDING' }, { status: 'SENT', sentAt: new Date(), lastError: null });
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
}
