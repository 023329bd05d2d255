import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UserDirectory } from '@app/account';
import { APP_CONFIG, AppConfig, formatMoney, html, joinHtml, queryRows, RowLease, Statement, Sweepers } from '@app/core';
import { Mailer, OutgoingMail } from '@app/mail';

export const LOW_BALANCE_MAIL_SWEEP = 'low-balance-mails';
const SWEEP_INTERVAL_MS = 1_000;
const BATCH_SIZE = 20;
/**
 * The lease on an alert's e-mail while one worker sends it (docs/operations.md, Leases): how long a
 * sender has before another worker takes the same e-mail over. Sends are short; no heartbeat.
 */
export const LOW_BALANCE_MAIL_LEASE = new RowLease({
  table: 'low_balance_alerts',
  alias: 'a',
  attempt: 'mail_attempts',
  lease: { until: 'mail_claimed_until' },
  pending: (a) => `${a}.mail_due`,
  ms: 120_000,
});
/** Who is told (docs/alerts.md): the people who can top the wallet up. */
const RECIPIENT_ROLES = ['owner', 'admin'] as const;

interface DueAlert {
  /** The lease's key and the take that holds it. */
  id: string;
  attempt: number;
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
 * worker, takes due e-mails' leases, sends one to each owner and admin, and clears them. A
 * worker that dies mid-way leaves its lease to run out and another sends them (at least once).
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
    const statement = new Statement();
    const take = LOW_BALANCE_MAIL_LEASE.takeBatch(statement, {
      where: () => 'true',
      orderBy: (a) => `${a}.last_sent_at`,
      limit: BATCH_SIZE,
      returning: `a.id, a.mail_attempts AS attempt, a.account_id, a.currency::text AS currency, a.threshold_cents::int AS threshold,
                 a.alerted_available_cents::int AS available, a.last_sent_at::text AS sent_at`,
    });
    const due = await queryRows<DueAlert>(this.dataSource.manager, take, statement.params);
    let sent = 0;
    for (const alert of due) {
      try {
        await this.send(alert);
        sent += 1;
      } catch (error) {
        this.logger.warn({ err: error, accountId: alert.account_id, currency: alert.currency }, 'low-balance e-mail failed; retrying when its lease ends');
      }
    }
    return sent;
  }

  private async send(alert: DueAlert): Promise<void> {
    const recipients = await this.directory.noticeRecipients(alert.account_id, RECIPIENT_ROLES);
    for (const to of recipients?.emails ?? []) {
      await this.mailer.send(lowBalanceEmail({ ...alert, to, accountName: recipients!.accountName, link: `${this.config.publicBaseUrl}/dashboard/wallet` }));
    }
    // Only this alert's e-mail, and only while this take still holds it: a later alert (a day on) is
    // owed its own, and a sender that outlived its lease leaves the e-mail to the one that took it over.
    const lease = LOW_BALANCE_MAIL_LEASE;
    await this.dataSource.query(
      `UPDATE low_balance_alerts a SET mail_due = false, ${lease.end}
        WHERE a.id = $1 AND ${lease.atAttempt('a', '$2')} AND a.last_sent_at = $3::timestamptz`,
      [alert.id, alert.attempt, alert.sent_at],
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
