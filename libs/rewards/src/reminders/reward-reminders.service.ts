import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AccountService, ReminderSettings } from '@app/account';
import { AuditOrigin } from '@app/audit';
import { APP_CONFIG, AppConfig, bigintCents, Clock, newId, queryRows, Statement } from '@app/core';
import { REMINDABLE_STATUSES, RewardEntity } from '../entities/reward.entity';
import { MailJobRepository } from '../lifecycle/mail-job.repository';
import { REWARD_EVENT_COLUMNS, rewardEventDataOfRow, RewardEventRow } from '../lifecycle/reward-webhook-data';
import { RewardTimeline, timelineEvent, TimelineEntry } from '../lifecycle/reward-timeline';
import { RewardJobs } from '../reward-jobs';
import { planReminder, ReminderPlan } from './reminder-plan';

/** Rewards the sweep looks at per transaction. */
export const REMINDER_BATCH_SIZE = 200;

interface DueRow extends RewardEventRow {
  type: RewardEntity['type'];
  reminders: boolean;
  sent_at: Date | null;
  expires_at: Date | null;
  reminded_after_days: number[];
  reminded_before_expiry: boolean;
  after_days: number[];
  before_expiry_days: number | null;
  settings_at: Date | null;
}

/** How long after a change of reminder settings the sweep catches up on sends that raced it (catchUp). */
const CATCH_UP_FOR = '15 minutes';
/** How far around the change a racing send's creation may be (its clock against the change's, and its duration). */
const CATCH_UP_AROUND = '5 minutes';

/**
 * Reward reminders (docs/delivery.md, Reminders): the account's settings, kept by libs/account
 * (which owns accounts), and the sweep that e-mails the reminders due. Each reward says when the
 * sweep should next look at it (`remind_at`, in a partial index of only those rows); the sweep locks
 * the due ones `FOR UPDATE SKIP LOCKED`, so workers running it side by side never take the same
 * reward, and writes the reminder's e-mail job, the record that it was sent, the timeline entry and
 * the webhook in one transaction: each reminder once.
 */
@Injectable()
export class RewardReminders {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountService,
    private readonly mailJobs: MailJobRepository,
    private readonly timeline: RewardTimeline,
    private readonly jobs: RewardJobs,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  settings(accountId: string): Promise<ReminderSettings> {
    return this.accounts.reminderSettings(accountId);
  }

  /**
   * Replaces the settings (audited by libs/account) and, in the same transaction, asks the sweep to
   * look again at the account's rewards that may still get reminders, since their next one may now
   * be sooner (or none).
   */
  async replaceSettings(accountId: string, settings: ReminderSettings, origin: AuditOrigin): Promise<ReminderSettings> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      await this.accounts.setReminderSettings(manager, accountId, settings, now, origin);
      await manager.query(
        `UPDATE rewards SET remind_at = $2
          WHERE account_id = $1 AND reminders AND status = ANY ($3::text[]) AND (remind_at IS NULL OR remind_at > $2)`,
        [accountId, now, ['CREATED', ...REMINDABLE_STATUSES]],
      );
    });
    return this.settings(accountId);
  }

  /** Sends the reminders due at the clock's now, batch after batch; returns how many were sent. */
  async sendDue(batchSize = REMINDER_BATCH_SIZE): Promise<number> {
    await this.catchUp(this.clock.now());
    let sent = 0;
    for (;;) {
      const { looked, mailJobIds } = await this.dataSource.transaction((manager) => this.sendBatch(manager, batchSize));
      sent += mailJobIds.length;
      if (mailJobIds.length) await this.jobs.enqueue({ mailJobIds });
      if (looked < batchSize) return sent;
    }
  }

  /**
   * A send asks the sweep to look at its reward only when the account has reminder settings, as the send
   * read them (SendControls.rulesFor). One that read "none" just before settings were saved, and committed
   * after replaceSettings asked the sweep to look at the open rewards, would never be looked at. So for
   * CATCH_UP_FOR after each change, the sweep asks again for the open rewards made within CATCH_UP_AROUND of
   * it that nothing is to look at (docs/delivery.md, Reminders).
   */
  private async catchUp(now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE rewards r SET remind_at = $1
         FROM accounts a
        WHERE a.reminder_settings_at > $1::timestamptz - $2::interval
          AND (cardinality(a.reminder_after_days) > 0 OR a.reminder_before_expiry_days IS NOT NULL)
          AND r.account_id = a.id
          AND r.created_at BETWEEN a.reminder_settings_at - $3::interval AND a.reminder_settings_at + $3::interval
          AND r.remind_at IS NULL AND r.reminders AND r.status = ANY ($4::text[])`,
      [now, CATCH_UP_FOR, CATCH_UP_AROUND, ['CREATED', ...REMINDABLE_STATUSES]],
    );
  }

  private async sendBatch(manager: EntityManager, limit: number): Promise<{ looked: number; mailJobIds: string[] }> {
    const now = this.clock.now();
    const due = await queryRows<DueRow>(
      manager,
      `SELECT ${REWARD_EVENT_COLUMNS}, r.type, r.reminders, r.sent_at, r.expires_at,
              r.reminded_after_days, r.reminded_before_expiry,
              a.reminder_after_days AS after_days, a.reminder_before_expiry_days AS before_expiry_days, a.reminder_settings_at AS settings_at
         FROM rewards r
         JOIN accounts a ON a.id = r.account_id
        WHERE r.remind_at IS NOT NULL AND r.remind_at <= $1
        ORDER BY r.remind_at
        LIMIT $2
          FOR UPDATE OF r SKIP LOCKED`,
      [now, limit],
    );
    if (due.length === 0) return { looked: 0, mailJobIds: [] };
    const plans = due.map((row) => ({ row, plan: this.plan(row, now) }));
    const statement = new Statement();
    const updated = statement.with(
      'reminded',
      `UPDATE rewards r
          SET remind_at = p.next,
              reminded_after_days = ARRAY(SELECT DISTINCT unnest(r.reminded_after_days || p.done::smallint[]) ORDER BY 1),
              reminded_before_expiry = r.reminded_before_expiry OR p.before_expiry
         FROM jsonb_to_recordset(${statement.param(
           JSON.stringify(
             plans.map(({ row, plan }) => ({ id: row.id, next: plan.next?.toISOString() ?? null, done: plan.afterDaysDone, before_expiry: plan.beforeExpiryDone })),
           ),
         )}::jsonb) AS p (id text, next timestamptz, done smallint[], before_expiry boolean)
        WHERE r.id = p.id
       RETURNING r.id`,
    );
    const sending = plans.filter(({ plan }) => plan.send !== null);
    const jobs = sending.map(({ row }) => ({ id: newId('mail'), rewardId: row.id, kind: 'reminder' as const }));
    if (jobs.length) this.mailJobs.insertIn(statement, jobs);
    const entries: TimelineEntry[] = sending.map(({ row, plan }) => ({
      event: timelineEvent(row.id, 'reward.reminded', now, { channel: 'email', reminder: plan.send }),
      webhook: { accountId: row.account_id, type: 'reward.reminded' as const, data: { ...rewardEventDataOfRow(row), reminder: plan.send } },
    }));
    this.timeline.recordIn(statement, entries);
    const [written] = await queryRows<{ updated: number }>(manager, statement.text(`SELECT (SELECT count(*) FROM ${updated})::int AS updated`), statement.params);
    if (written.updated !== due.length) throw new Error(`reminder batch updated ${written.updated} of ${due.length} rewards`);
    return { looked: due.length, mailJobIds: jobs.map((job) => job.id) };
  }

  private plan(row: DueRow, now: Date): ReminderPlan {
    return planReminder(
      {
        type: row.type,
        status: row.status,
        remainingValueCents: bigintCents.from(row.remaining_value_cents) as number,
        reminders: row.reminders,
        sentAt: row.sent_at,
        expiresAt: row.expires_at,
        remindedAfterDays: row.reminded_after_days.map(Number),
        remindedBeforeExpiry: row.reminded_before_expiry,
        afterDays: row.after_days.map(Number),
        beforeExpiryDays: row.before_expiry_days,
        settingsAt: row.settings_at,
      },
      now,
      this.config.reminderUnitMs,
    );
  }
}
