import { planReminder, ReminderCandidate } from './reminder-plan';

const DAY = 1_000;
const T0 = new Date('2026-01-01T00:00:00Z').getTime();
const at = (days: number) => new Date(T0 + days * DAY);

function reward(overrides: Partial<ReminderCandidate> = {}): ReminderCandidate {
  return {
    type: 'CHOICE',
    status: 'SENT',
    remainingValueCents: 1_000,
    reminders: true,
    sentAt: at(0),
    expiresAt: null,
    remindedAfterDays: [],
    remindedBeforeExpiry: false,
    afterDays: [3, 10],
    beforeExpiryDays: null,
    settingsAt: at(-1),
    ...overrides,
  };
}

describe('planReminder (docs/delivery.md, Reminders)', () => {
  it('nothing due yet: look again at the first reminder', () => {
    expect(planReminder(reward(), at(1), DAY)).toEqual({ send: null, afterDaysDone: [], beforeExpiryDone: false, next: at(3) });
  });

  it('an afterDays reminder when due, then the next one', () => {
    expect(planReminder(reward(), at(3), DAY)).toEqual({ send: 'after_days', afterDaysDone: [3], beforeExpiryDone: false, next: at(10) });
    expect(planReminder(reward({ remindedAfterDays: [3] }), at(4), DAY)).toMatchObject({ send: null, next: at(10) });
    expect(planReminder(reward({ remindedAfterDays: [3, 10] }), at(11), DAY)).toMatchObject({ send: null, next: null });
  });

  it('before expiry; reminders due together make one, the last due', () => {
    const expiring = reward({ expiresAt: at(12), beforeExpiryDays: 2 });
    expect(planReminder(expiring, at(10.5), DAY)).toEqual({ send: 'before_expiry', afterDaysDone: [3, 10], beforeExpiryDone: true, next: null });
  });

  it('none for a closed, used up, expired or opted-out reward, nor without settings', () => {
    for (const closed of [
      reward({ status: 'REDEEMED' }),
      reward({ status: 'CANCELED' }),
      reward({ status: 'EXPIRED' }),
      reward({ remainingValueCents: 0, status: 'PARTIALLY_REDEEMED' }),
      reward({ expiresAt: at(3) }),
      reward({ reminders: false }),
      reward({ afterDays: [], beforeExpiryDays: null }),
    ]) {
      expect(planReminder(closed, at(3), DAY)).toEqual({ send: null, afterDaysDone: [], beforeExpiryDone: false, next: null });
    }
    // A FIXED reward's value is its card: SENT or OPENED until the card is issued.
    expect(planReminder(reward({ type: 'FIXED', remainingValueCents: 0 }), at(3), DAY).send).toBe('after_days');
  });

  it('not delivered yet: looked at again a day later', () => {
    expect(planReminder(reward({ status: 'CREATED', sentAt: null }), at(1), DAY)).toMatchObject({ send: null, next: at(2) });
  });

  it('a reminder due before the settings were saved is never sent', () => {
    expect(planReminder(reward({ settingsAt: at(5) }), at(5), DAY)).toEqual({ send: null, afterDaysDone: [], beforeExpiryDone: false, next: at(10) });
  });
});
