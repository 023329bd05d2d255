/** Counters kept at most; past this, expired windows are dropped, and if none has expired the oldest go. */
const MAX_COUNTERS = 50_000;

/**
 * Fixed-window counters in this process's memory: the stand-in for Redis while Redis cannot be
 * reached (docs/operations.md, Degraded modes). Each process counts alone, so with n API processes
 * a client may get up to n times its limit meanwhile; that approximation is the price of answering
 * at all.
 */
export class LocalRateLimits {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  /** Counts one event against `key`; the count and the ms left in its window. */
  hit(key: string, windowMs: number, now = Date.now()): [number, number] {
    const window = this.current(key, now) ?? this.open(key, windowMs, now);
    window.count += 1;
    return [window.count, window.endsAt - now];
  }

  /** The count without counting (0 and no ttl when there is no window). */
  peek(key: string, now = Date.now()): [number, number] {
    const window = this.current(key, now);
    return window ? [window.count, window.endsAt - now] : [0, -2];
  }

  private current(key: string, now: number) {
    const window = this.windows.get(key);
    if (window && window.endsAt > now) return window;
    if (window) this.windows.delete(key);
    return undefined;
  }

  private open(key: string, windowMs: number, now: number) {
    if (this.windows.size >= MAX_COUNTERS) this.evict(now);
    const window = { count: 0, endsAt: now + windowMs };
    this.windows.set(key, window);
    return window;
  }

  private evict(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    // Still full: drop the oldest (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_COUNTERS) break;
      this.windows.delete(key);
    }
  }
}
