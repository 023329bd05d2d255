import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, bigintCents, Clock } from '@app/core';
import { Mailer, OutgoingMail, OutgoingSms, renderRewardEmail, renderRewardSms, SmsRefusal, SmsSender } from '@app/mail';
import { RewardEntity } from './entities/reward.entity';
import { stillRemindable } from './reminders/reminder-plan';
import { MailJobRepository } from './lifecycle/mail-job.repository';
import { LeasedMail, MailLease, TakenMail } from './lifecycle/mail-lease';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { redemptionUrl } from './reward-drafts';
import { emailsSent, smsSent } from './reward-metrics';

/**
 * Sends a reward e-mail, or its text message (a job of channel `sms`: docs/delivery.md, SMS). Every e-mail of a reward (the first and each resend) carries the reward's
 * one link, the create response's (docs/redemption.md, One link), read back from its sealed copy.
 * A crash between sending and marking SENT sends the e-mail again on retry (at least once, never lost).
 * What the relay answers decides the reward's `emailStatus` (docs/delivery.md); what the SMS provider
 * answers, its `smsStatus`, with the same lease, retries and backoff.
 */
@Injectable()
export class RewardMailService {
  constructor(
    private readonly mailer: Mailer,
    private readonly sms: SmsSender,
    private readonly lease: MailLease,
    private readonly mailJobs: MailJobRepository,
    private readonly lifecycle: RewardLifecycle,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(mailJobId: string, finalAttempt: boolean): Promise<'sent' | 'retrying' | 'failed' | 'skipped'> {
    // The lease keeps a duplicate job (a stalled job re-run, the sweeper) from sending it twice at once.
    // The take reads what the message shows in the same statement (MAIL_READ).
    const taken = await this.lease.takeReading<MailRow>(mailJobId, MAIL_READ);
    if (!taken) return 'skipped';
    const { mail, row } = taken;
    return this.lease.hold(mail, () => this.deliver(mail, row, finalAttempt));
  }

  private async deliver(mail: LeasedMail, row: MailRow, finalAttempt: boolean): Promise<'sent' | 'retrying' | 'failed'> {
    let outgoing: OutgoingMail | OutgoingSms | null;
    try {
      outgoing = await this.compose(mail, row);
    } catch (error) {
      // Not the relay's answer (the database, a missing row): the queue's own retries, as before.
      emailsSent.inc({ outcome: finalAttempt ? 'failed' : 'retrying' });
      const reason = String((error as Error).message);
      await (finalAttempt ? this.mailJobs.markFailed(mail, reason) : this.lease.release(mail, reason));
      throw error;
    }
    if (outgoing === null) {
      // A reminder of a reward redeemed, cancelled or expired since it was planned: not sent (docs/delivery.md, Reminders).
      await this.mailJobs.markFailed(mail, 'the reward was used up, cancelled or expired before its reminder went out');
      return 'failed';
    }
    const channel = this.channelOf(mail, outgoing);
    try {
      await channel.transmit();
    } catch (error) {
      return this.refused(mail, channel, channel.refusal(error));
    }
    await channel.delivered(this.clock.now());
    channel.counter.inc({ outcome: 'sent' });
    return 'sent';
  }

  /**
   * How a job reaches its recipient: an e-mail through the SMTP relay, a text through SMS_PROVIDER's
   * adapter. Both then follow one rule (`refused`).
   */
  private channelOf(mail: LeasedMail, outgoing: OutgoingMail | OutgoingSms): DeliveryChannel {
    if ('subject' in outgoing) {
      return {
        counter: emailsSent,
        transmit: () => this.mailer.send(outgoing),
        refusal: smtpRefusal,
        failed: (reason) => this.lifecycle.emailFailed(mail, reason),
        delivered: (sentAt) => this.lifecycle.emailDelivered(mail, sentAt),
      };
    }
    return {
      counter: smsSent,
      transmit: () => this.sms.send(outgoing),
      refusal: (error) =>
        error instanceof SmsRefusal ? error : { permanent: false, reason: String((error as Error)?.message ?? error).replace(/\s+/g, ' ').slice(0, 200) },
      failed: (reason) => this.lifecycle.smsFailed(mail, reason),
      delivered: (sentAt) => this.lifecycle.smsSent(mail, sentAt),
    };
  }

  /**
   * The relay or the SMS provider did not take the message (docs/delivery.md): a permanent refusal
   * (an SMTP 5xx; an invalid or unsubscribed number) fails it at once with `reward.delivery_failed`
   * naming the channel; a temporary one, or no answer, is tried again after EMAIL_RETRY_BASE_MS
   * doubling with each attempt, on the service's clock, until EMAIL_MAX_ATTEMPTS attempts have been made.
   */
  private async refused(mail: LeasedMail, channel: DeliveryChannel, refusal: { permanent: boolean; reason: string }): Promise<'retrying' | 'failed'> {
    if (refusal.permanent || mail.attempt >= this.config.emailMaxAttempts) {
      channel.counter.inc({ outcome: 'failed' });
      await channel.failed(refusal.reason);
      return 'failed';
    }
    channel.counter.inc({ outcome: 'retrying' });
    await this.lease.releaseUntil(mail, refusal.reason, new Date(this.clock.now().getTime() + this.retryDelay(mail)));
    return 'retrying';
  }

  private retryDelay(job: LeasedMail): number {
    return this.config.emailRetryBaseMs * 2 ** (job.attempt - 1);
  }

  /** The e-mail or text to send; null for a reminder whose reward has nothing left to remind of. */
  private async compose(mail: LeasedMail, row: MailRow): Promise<OutgoingMail | OutgoingSms | null> {
    if (row.id === null) throw new Error(`reward ${mail.rewardId} of the e-mail job not found`);
    const reminder = row.kind === 'reminder';
    if (reminder && !stillRemindable({ type: row.type, status: row.status, remainingValueCents: Number(row.remaining_value_cents), expiresAt: row.expires_at }, this.clock.now())) {
      return null;
    }
    const token = await this.lifecycle.redemptionToken({ id: row.id, accountId: row.account_id }, row.token_sealed);
    const senderName = row.sender_name ?? row.account_name;
    if (row.channel === 'sms') {
      if (!row.recipient_phone) throw new Error(`reward ${row.id} of the text job ${mail.id} has no phone`);
      const body = renderRewardSms({
        senderName,
        valueCents: bigintCents.from(row.face_value_cents) as number,
        currency: row.currency,
        type: row.type,
        brandName: row.brand_name,
        link: redemptionUrl(this.config.publicBaseUrl, token),
        language: row.recipient_language,
      });
      return { to: row.recipient_phone, body, reference: `${row.id}-${mail.id}` };
    }
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
      language: row.recipient_language,
      reminder,
    });
    return { fromName: senderName, to: row.recipient_email, reference: `${row.id}-${mail.id}`, ...email };
  }
}

interface DeliveryChannel {
  counter: typeof emailsSent;
  transmit(): Promise<unknown>;
  refusal(error: unknown): { permanent: boolean; reason: string };
  failed(reason: string): Promise<unknown>;
  /** The job SENT at `sentAt` and the reward's status for the channel, in one statement. */
  delivered(sentAt: Date): Promise<unknown>;
}

/**
 * What a message shows, read over the job `taken` (MailLease.takeReading): the reward, its account's
 * branding and the sealed link token (none for a reward sent before rewards kept one: redemptionToken
 * then makes it). The outer joins are defensive (a job's reward cannot be deleted under it: the
 * foreign key cascades): a job taken always comes back, so its lease is never left held by a send that
 * saw no row.
 */
export const MAIL_READ = (taken: string) => `SELECT ${taken}.*, r.id, r.account_id, r.type, r.face_value_cents, r.currency, r.recipient_email, r.recipient_first_name,
       r.recipient_language, r.recipient_phone, r.message, r.brand_name, r.expires_at, r.status, r.remaining_value_cents,
       a.name AS account_name, a.sender_name, a.logo_url, a.brand_color, l.token_sealed
  FROM ${taken}
  LEFT JOIN rewards r ON r.id = ${taken}.reward_id
  LEFT JOIN accounts a ON a.id = r.account_id
  LEFT JOIN redemption_links l ON l.reward_id = r.id AND l.token_sealed IS NOT NULL`;

export interface MailRow extends TakenMail {
  /** The reward's id; null only if the reward were gone. */
  id: string | null;
  status: RewardEntity['status'];
  remaining_value_cents: string;
  account_id: string;
  type: RewardEntity['type'];
  face_value_cents: string;
  currency: string;
  recipient_email: string;
  recipient_first_name: string;
  recipient_language: string | null;
  recipient_phone: string | null;
  message: string | null;
  brand_name: string | null;
  expires_at: Date | null;
  account_name: string;
  sender_name: string | null;
  logo_url: string | null;
  brand_color: string | null;
  token_sealed: string | null;
}

export interface SmtpRefusal {
  /** A 5xx reply: the server will not take this message for this recipient, however often it is sent. */
  permanent: boolean;
  /** The server's reply (its code and text), or what went wrong when there was none. */
  reason: string;
}

/**
 * What nodemailer's error says of the relay's answer: `responseCode` and `response` (the reply line,
 * e.g. `550 5.1.1 <x@example.com>: Recipient address rejected`) when the server refused, none when the
 * connection failed or timed out (temporary, as a 4xx is).
 */
export function smtpRefusal(error: unknown): SmtpRefusal {
  const { responseCode, response, message } = (error ?? {}) as { responseCode?: unknown; response?: unknown; message?: unknown };
  const code = typeof responseCode === 'number' ? responseCode : Number.NaN;
  const reply = typeof response === 'string' && response.trim() ? response.trim() : String(message ?? error);
  return { permanent: code >= 500 && code < 600, reason: reply.replace(/\s+/g, ' ').slice(0, 200) };
}
