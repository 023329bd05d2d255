import { describe, expect, it } from 'vitest';
import { quoteDeadline, secondsLeft } from './quote-countdown';

/** A quote made at `made` on the service's clock, answered with `Date` then, and received by a page whose clock is `skewMs` off. */
function received(madeIso: string, skewMs: number, latencyMs = 0) {
  const made = Date.parse(madeIso);
  const expiresAt = new Date(made + 60_000).toISOString();
  const serverDate = new Date(Math.floor(made / 1000) * 1000).toUTCString();
  const pageNow = made + latencyMs + skewMs;
  return { expiresAt, serverDate, pageNow };
}

describe('the seconds a quote has left, on the page clock', () => {
  it('counts down from 60 s, at most, to 0 when less than a second is left', () => {
    const { expiresAt, serverDate, pageNow } = received('2026-11-28T10:00:00.000Z', 0);
    const deadline = quoteDeadline(expiresAt, pageNow, serverDate);
    expect(secondsLeft(deadline, pageNow)).toBe(59);
    expect(secondsLeft(deadline, pageNow + 30_000)).toBe(29);
    expect(secondsLeft(deadline, pageNow + 58_999)).toBe(0);
    expect(secondsLeft(deadline, pageNow + 59_000)).toBe(0);
    expect(secondsLeft(deadline, pageNow + 120_000)).toBe(0);
  });

  it('never shows more time than the quote has: the cut-off second of Date counts against the page', () => {
    // Made 900 ms into a second: Date says the second before, and the service really had 60 s left.
    const { expiresAt, serverDate, pageNow } = received('2026-11-28T10:00:00.900Z', 0);
    const deadline = quoteDeadline(expiresAt, pageNow, serverDate);
    expect(deadline).toBeLessThanOrEqual(pageNow + 60_000);
    expect(secondsLeft(deadline, pageNow)).toBe(59);
  });

  it('a page clock minutes ahead or behind the service still sees the quote binding for about a minute', () => {
    for (const skew of [5 * 60_000, -5 * 60_000, 3_600_000]) {
      const { expiresAt, serverDate, pageNow } = received('2026-11-28T10:00:00.400Z', skew, 150);
      const deadline = quoteDeadline(expiresAt, pageNow, serverDate);
      expect(secondsLeft(deadline, pageNow)).toBeGreaterThanOrEqual(58);
      expect(secondsLeft(deadline, pageNow)).toBeLessThanOrEqual(60);
      expect(secondsLeft(deadline, pageNow + 61_000)).toBe(0);
    }
  });

  it('without a Date header, expiresAt is read on the page clock as it is', () => {
    const deadline = quoteDeadline('2026-11-28T10:01:00.000Z', Date.parse('2026-11-28T10:00:05.000Z'), null);
    expect(secondsLeft(deadline, Date.parse('2026-11-28T10:00:05.000Z'))).toBe(55);
    expect(quoteDeadline('2026-11-28T10:01:00.000Z', 0, 'not a date')).toBe(Date.parse('2026-11-28T10:01:00.000Z'));
  });
});
