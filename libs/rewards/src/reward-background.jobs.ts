import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Clock, Sweepers } from '@app/core';
import { MailJobRepository } from './lifecycle/mail-job.repository';
import { MailLease } from './lifecycle/mail-lease';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';
import { RewardJobs } from './reward-jobs';
import { RewardReminders } from './reminders/reward-reminders.service';

export const REWARD_EXPIRY_SWEEP = 'reward-expiry';
export const REWARD_JOB_SWEEP = 'reward-job-sweeper';
export const APPROVAL_EXPIRY_SWEEP = 'approval-expiry';
/** Delivers scheduled sends whose time has come (docs/delivery.md, Scheduled sends). */
export const SCHEDULED_DELIVERY_SWEEP = 'scheduled-delivery';
export const REWARD_REMINDER_SWEEP = 'reward-reminders';
/** How often the reminder sweep looks for reminders due (a reminder is late by at most this). */
const REMINDER_SWEEP_EVERY_MS = 60_000;
const SWEEP_EVERY_MS = 5_000;
/** Work older than this with no job is assumed orphaned (the process died before enqueueing). */
const ORPHAN_AFTER = '30 seconds';
/** Rows of each kind enqueued per sweep. */
const SWEEP_LIMIT = 1000;

/**
 * The sweeps of the rewards domain (worker side only), registered with the worker's `Sweepers`
 * (docs/operations.md, Background work): expiry, reminders, and the sweeper that enqueues card issuances and
 * e-mails whose jobs were never enqueued, were lost with a Redis failure, or whose worker died.
 */
@Injectable()
export class RewardBackgroundJobs implements OnModuleInit {
  constructor(
    private readonly lifecycle: RewardLifecycle,
    private readonly rewards: RewardRepository,
    private readonly mailJobs: MailJobRepository,
    private readonly mailLease: MailLease,
    private readonly jobs: RewardJobs,
    private readonly reminders: RewardReminders,
    private readonly sweepers: Sweepers,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // Before expiry in each tick's order of registration; both run on the expiry interval.
    this.sweepers.register({ name: SCHEDULED_DELIVERY_SWEEP, everyMs: this.config.expirySweepIntervalMs, run: () => this.deliverDue() });
    this.sweepers.register({ name: REWARD_EXPIRY_SWEEP, everyMs: this.config.expirySweepIntervalMs, run: () => this.expireDue() });
    this.sweepers.register({ name: REWARD_JOB_SWEEP, everyMs: SWEEP_EVERY_MS, run: () => this.enqueueOrphans() });
    this.sweepers.register({
      name: REWARD_REMINDER_SWEEP,
      everyMs: Math.min(REMINDER_SWEEP_EVERY_MS, this.config.reminderUnitMs),
      run: () => this.sendDueReminders(),
    });
    this.sweepers.register({ name: APPROVAL_EXPIRY_SWEEP, everyMs: this.config.expirySweepIntervalMs, run: () => this.rejectStaleApprovals() });
  }

  /** E-mails the reward reminders due (docs/delivery.md, Reminders); several workers may run it at once. */
  sendDueReminders(batchSize?: number): Promise<number> {
    return this.reminders.sendDue(batchSize);
  }

  /** Rejects sends left undecided for 30 days (docs/controls.md, Approvals). */
  async rejectStaleApprovals(): Promise<void> {
    await this.lifecycle.rejectStaleApprovals();
  }

  /** Delivers due scheduled sends (RewardLifecycle.deliverDue); several workers may run it at once. */
  deliverDue(batchSize?: number): Promise<number> {
    return this.lifecycle.deliverDue(batchSize);
  }

  /** Expires due rewards (RewardLifecycle.expireDue); several workers may run it at once. */
  expireDue(batchSize?: number): Promise<number> {
    return this.lifecycle.expireDue(batchSize);
  }

  async enqueueOrphans(): Promise<void> {
    // A card whose issuance lease ran out was left by a run that died at the supplier: enqueued
    // again, its next run looks the order up (docs/rewards.md, Issuance). A live lease is left alone.
    const now = this.clock.now();
    const cardIds = await this.rewards.cardsToSweep(ORPHAN_AFTER, SWEEP_LIMIT, now);
    // E-mails retried after a temporary refusal come back here once their time has come.
    const mailJobIds = await this.mailJobs.pendingToSweep(ORPHAN_AFTER, SWEEP_LIMIT, now);
    // An e-mail whose worker died while sending: its lease has run out (renewed every few seconds while alive).
    const expiredMailLeases = await this.mailLease.expired(SWEEP_LIMIT);
    await this.jobs.enqueue({ cardIds, mailJobIds, expiredMailLeases, swept: true });
  }
}
