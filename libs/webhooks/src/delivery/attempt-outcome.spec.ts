import { decideAttempt } from './attempt-outcome';
import type { HttpOutcome } from './webhook-http-client';

const policy = { maxAttempts: 5, retryBaseMs: 30_000 };
const now = Date.parse('2026-01-01T00:00:00Z');
const started = new Date(now - 50);
const delivery = (attempts: number) => ({ id: 'whd_1', endpoint_id: 'we_1', attempts });
const answered = (status: number | null, extra: Partial<HttpOutcome> = {}): HttpOutcome => ({ status, error: null, retryAfter: undefined, durationMs: 40, ...extra });
const noJitter = () => 0;

describe('what an attempt outcome means for its delivery', () => {
  it('a 2xx finishes the delivery, with nothing scheduled', () => {
    const record = decideAttempt(delivery(1), started, answered(204), policy, now, noJitter);
    expect(record).toMatchObject({ status: 'SUCCEEDED', succeeded: true, error: null, nextAttemptAt: null, gone: false, attempt: 1, durationMs: 40 });
  });

  it('a failure is retried after the back-off of its attempt, and the last attempt fails the delivery', () => {
    expect(decideAttempt(delivery(1), started, answered(500), policy, now, noJitter)).toMatchObject({
      status: 'PENDING',
      error: 'HTTP 500',
      nextAttemptAt: new Date(now + 30_000),
      retryNotBefore: null,
    });
    expect(decideAttempt(delivery(3), started, answered(null, { error: 'timeout' }), policy, now, noJitter)).toMatchObject({
      status: 'PENDING',
      error: 'timeout',
      nextAttemptAt: new Date(now + 120_000),
    });
    expect(decideAttempt(delivery(5), started, answered(500), policy, now, noJitter)).toMatchObject({ status: 'FAILED', nextAttemptAt: null });
  });

  it('a 410 parks the delivery with its endpoint (no next attempt), whatever its attempt', () => {
    for (const attempts of [1, 5]) {
      expect(decideAttempt(delivery(attempts), started, answered(410), policy, now, noJitter)).toMatchObject({
        status: 'PENDING',
        gone: true,
        nextAttemptAt: null,
        error: 'HTTP 410 Gone: endpoint paused',
      });
    }
  });

  it('a Retry-After on a 429 or 503 is a floor for the next attempt, never shortening the back-off', () => {
    const longer = decideAttempt(delivery(1), started, answered(429, { retryAfter: '600' }), policy, now, noJitter);
    expect(longer).toMatchObject({ nextAttemptAt: new Date(now + 600_000), retryNotBefore: new Date(now + 600_000) });
    const shorter = decideAttempt(delivery(1), started, answered(503, { retryAfter: '5' }), policy, now, noJitter);
    expect(shorter).toMatchObject({ nextAttemptAt: new Date(now + 30_000), retryNotBefore: new Date(now + 5_000) });
    // Only those two statuses carry it.
    expect(decideAttempt(delivery(1), started, answered(500, { retryAfter: '600' }), policy, now, noJitter)).toMatchObject({ retryNotBefore: null });
  });

  it('a redirect is a failure that says it was not followed', () => {
    expect(decideAttempt(delivery(1), started, answered(302), policy, now, noJitter).error).toBe('HTTP 302: redirects are not followed');
  });
});
