import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UserDirectory } from '@app/account';
import { APP_CONFIG, AppConfig, formatMoney, html, joinHtml, Sweepers } from '@app/core';
import { Mailer, OutgoingMail } from '@app/mail';

export const LOW_BALANCE_MAIL_SWEEP = 'low-balance-mails';
const SWEEP_INTERVAL_MS = 1_000;
const BATCH_SIZE = 20;
/** How long a sender has before another worker takes the same alert's e-mail over. */
const CLAIM_SECONDS = 120;
/** Who is told (docs/alerts.md): the people who can top the wallet up. */
const RECIPIENT_ROLES = ['owner', 'admin'] as const;

interface DueAlert {
  account_id: string;
  currency: string;
  threshold: number;
  available: number;
  /** As the database wrote it (microseconds), to clear exactly this alert's e-mail. */
  sent_at: string;
}

/**
 * Sends the e-mails of low-balance alerts (docs/alerts.md). The alert itself is raised and recorded
 * by the database with the movement that lowered the balance (`mail_due`); this sweep, on every
 * worker, claims due e-mails for a while, sends one to each owner and admin, and clears them. A
 * worker that dies mid-way leaves its claim to expire and another sends them (at least once).
 */
@Injectable()
export class LowBalanceMailSweep implements OnModuleInit {
  private readonly logger = new Logger(LowBalanceMailSweep.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly directory: UserDirectory,
    private readonly mailer: Mailer,
    private readonly sweepers: Sweepers,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sweepers.register({ name: LOW_BALANCE_MAIL_SWEEP, everyMs: SWEEP_INTERVAL_MS, run: () => this.sweep() });
  }

  /** Sends what is due; returns how many alerts it e-mailed. */
  async sweep(): Promise<number> {
    const due = (await this.dataSource.query(
      `UPDATE low_balance_alerts a SET mail_claimed_until = clock_timestamp() + make_interval(secs => $2)
         FROM (SELECT account_id, currency FROM low_balance_alerts
                WHERE mail_due AND (mail_claimed_until IS NULL OR mail_claimed_until < clock_timestamp())
                ORDER BY last_sent_at LIMIT $1 FOR UPDATE SKIP LOCKED) AS c
        WHERE a.account_id = c.account_id AND a.currency = c.currency
       RETURNING a.account_id, a.currency::text AS currency, a.threshold_cents::int AS threshold,
                 a.alerted_available_cents::int AS available, a.last_sent_at::text AS sent_at`,
      [BATCH_SIZE, CLAIM_SECONDS],
    )) as [DueAlert[], number];
    let sent = 0;
    for (const alert of due[0]) {
      try {
        await this.send(alert);
        sent += 1;
      } catch (error) {
        this.logger.warn({ err: error, accountId: alert.account_id, currency: alert.currency }, 'low-balance e-mail failed; retrying when its claim ends');
      }
    }
    return sent;
  }

  private async send(alert: DueAlert): Promise<void> {
    const recipients = await this.directory.noticeRecipients(alert.account_id, RECIPIENT_ROLES);
    for (const to of recipients?.emails ?? []) {
      await this.mailer.send(lowBalanceEmail({ ...alert, to, accountName: recipients!.accountName, link: `${this.config.publicBaseUrl}/dashboard/wallet` }));
    }
    // Only this alert's e-mail: a later alert (a day on) is owed its own.
    await this.dataSource.query(
      `UPDATE low_balance_alerts SET mail_due = false, mail_claimed_until = NULL
        WHERE account_id = $1 AND currency = $2 AND last_sent_at = $3::timestamptz`,
      [alert.account_id, alert.currency, alert.sent_at],
    );
  }
}

export function lowBalanceEmail(input: DueAlert & { to: string; accountName: string; link: string }): OutgoingMail {
  const available = formatMoney(input.available, input.currency);
  const threshold = formatMoney(input.threshold, input.currency);
  const lines = [
    `The ${input.currency} wallet of ${input.accountName} has ${available} available, below your alert threshold of ${threshold}.`,
    'Top it up so that rewards in this currency keep going out. You get this alert at most once a day per wallet.',
  ];
  const markup = joinHtml(
    [
      html`<!doctype html><html><body style="font-family:sans-serif">`,
      ...lines.map((line) => html`<p>${line}</p>`),
      html`<p><a href="${input.link}">Open the wallet</a></p>`,
      html`</body></html>`,
    ],
    '\n',
  );
  return {
    fromName: 'Rewards',
    to: input.to,
    subject: `Low balance: ${input.currency} wallet of ${input.accountName}`,
    html: markup.toString(),
    text: [...lines, '', `Open the wallet: ${input.link}`, ''].join('\n'),
    reference: `low-balance-${input.account_id}-${input.currency}`,
  };
}
