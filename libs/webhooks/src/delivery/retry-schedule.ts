export const MAX_BACKOFF_MS = 6 * 60 * 60 * 1000;
/** A receiver's Retry-After is honoured up to this; longer asks are treated as this long. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Delay before the attempt after `attemptsMade` failures: base * 2^(n-1), capped at 6 h, plus up to
 * 25% jitter so receivers that fail together are not retried in lockstep. Never less than the
 * un-jittered delay, so a Retry-After floor stays a floor.
 */
export function retryDelayMs(attemptsMade: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attemptsMade - 1), MAX_BACKOFF_MS);
  return Math.min(Math.round(exponential * (1 + 0.25 * random())), Math.round(MAX_BACKOFF_MS * 1.25));
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}
