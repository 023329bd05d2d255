import { MAX_BACKOFF_MS, parseRetryAfter, retryDelayMs } from './retry-schedule';

describe('retry schedule', () => {
  it('doubles from the base per attempt, with at most 25% jitter on top', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 30_000, () => 0))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(1, 30_000, () => 0.999)).toBeLessThanOrEqual(37_500);
    const samples = Array.from({ length: 200 }, () => retryDelayMs(3, 1000));
    const sorted = [...samples].sort((a, b) => a - b);
    expect(sorted[0]).toBeGreaterThanOrEqual(4000);
    expect(sorted[sorted.length - 1]).toBeLessThanOrEqual(5000);
    expect(new Set(samples).size).toBeGreaterThan(10);
  });

  it('is capped at 6 h (plus jitter) however many attempts were made', () => {
    expect(retryDelayMs(12, 30_000, () => 0)).toBe(MAX_BACKOFF_MS);
    expect(retryDelayMs(100, 30_000, () => 1)).toBe(MAX_BACKOFF_MS * 1.25);
  });

  it('reads Retry-After as seconds or an HTTP date; ignores garbage; caps at 24 h', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
    expect(parseRetryAfter('999999999')).toBe(24 * 60 * 60 * 1000);
  });
});
