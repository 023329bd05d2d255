import type { RewardStatus, RewardType } from '../entities/reward.entity';
import { REMINDABLE_STATUSES } from '../entities/reward.entity';

export type ReminderKind = 'after_days' | 'before_expiry';

/** What the reminder sweep knows of one reward and its account's settings. */
export interface ReminderCandidate {
  type: RewardType;
  status: RewardStatus;
  remainingValueCents: number;
  reminders: boolean;
  sentAt: Date | null;
  expiresAt: Date | null;
  remindedAfterDays: number[];
  remindedBeforeExpiry: boolean;
  afterDays: number[];
  beforeExpiryDays: number | null;
  /** When the settings were last saved: a reminder due before then is not sent. */
  settingsAt: Date | null;
}

export interface ReminderPlan {
  /** The reminder e-mailed now, if any. */
  send: ReminderKind | null;
  /** The afterDays values done now (sent, or passed together with the one sent). */
  afterDaysDone: number[];
  beforeExpiryDone: boolean;
  /** When the sweep looks at the reward again; null: never (closed, opted out, nothing left to send). */
  next: Date | null;
}

/**
 * A reminder is for a reward the recipient can still use: delivered, value left, not expired. The
 * sweep asks when it plans one, the mail worker again when it sends it (the reward may have moved on).
 */
export function stillRemindable(reward: Pick<ReminderCandidate, 'type' | 'status' | 'remainingValueCents' | 'expiresAt'>, now: Date): boolean {
  const valueLeft = reward.type === 'FIXED' || reward.remainingValueCents > 0;
  const expired = reward.expiresAt !== null && reward.expiresAt.getTime() <= now.getTime();
  return REMINDABLE_STATUSES.includes(reward.status) && valueLeft && !expired;
}

/**
 * Decides what one reward is owed now (docs/delivery.md, Reminders). A reward with value left in
 * SENT, OPENED or PARTIALLY_REDEEMED gets each `afterDays` reminder `d` units after its delivery
 * (`sentAt`) and the `beforeExpiryDays` one that many units before `expiresAt`, each once. Reminders
 * that fall due together (the sweep was late, or the settings changed) make one e-mail, the one due
 * last; the others count as done. A reward not delivered yet (CREATED: waiting for approval or its
 * delivery time) is looked at again one unit later.
 */
export function planReminder(reward: ReminderCandidate, now: Date, unitMs: number): ReminderPlan {
  const none: ReminderPlan = { send: null, afterDaysDone: [], beforeExpiryDone: false, next: null };
  const hasSettings = reward.afterDays.length > 0 || reward.beforeExpiryDays !== null;
  if (!reward.reminders || !hasSettings) return none;
  if (reward.status === 'CREATED') return { ...none, next: new Date(now.getTime() + unitMs) };
  if (!stillRemindable(reward, now)) return none;

  const owed: { kind: ReminderKind; days: number | null; at: number }[] = [];
  if (reward.sentAt) {
    for (const days of reward.afterDays) {
      if (!reward.remindedAfterDays.includes(days)) owed.push({ kind: 'after_days', days, at: reward.sentAt.getTime() + days * unitMs });
    }
  }
  if (reward.beforeExpiryDays !== null && reward.expiresAt && !reward.remindedBeforeExpiry) {
    owed.push({ kind: 'before_expiry', days: null, at: reward.expiresAt.getTime() - reward.beforeExpiryDays * unitMs });
  }
  const since = reward.settingsAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  // Due before the settings asked for it: never sent (turning reminders on does not remind every old reward at once).
  const live = owed.filter((reminder) => reminder.at >= since);
  const due = live.filter((reminder) => reminder.at <= now.getTime()).sort((a, b) => a.at - b.at);
  const later = live.filter((reminder) => reminder.at > now.getTime()).map((reminder) => reminder.at);
  return {
    send: due.length ? due[due.length - 1].kind : null,
    afterDaysDone: due.filter((reminder) => reminder.kind === 'after_days').map((reminder) => reminder.days!),
    beforeExpiryDone: due.some((reminder) => reminder.kind === 'before_expiry'),
    next: later.length ? new Date(later.reduce((soonest, at) => (at < soonest ? at : soonest))) : null,
  };
}
