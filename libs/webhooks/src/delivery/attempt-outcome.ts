import { webhookDeliveryAttempts, webhookDeliveryLag } from './webhook-metrics';
import type { AttemptRecord } from './attempt-recorder';
import type { ClaimedDelivery } from './delivery-leases';
import { parseRetryAfter, retryDelayMs } from './retry-schedule';
import type { HttpOutcome } from './webhook-http-client';

export interface RetryPolicy {
  /** WEBHOOK_MAX_ATTEMPTS: the attempt after which a failed delivery is FAILED. */
  maxAttempts: number;
  /** WEBHOOK_RETRY_BASE_MS: the first back-off (docs/webhooks.md, Retries). */
  retryBaseMs: number;
}

/**
 * What an attempt's outcome means for its delivery (docs/webhooks.md, Retries; Pausing and 410):
 * a 2xx finishes it; a 410 parks it with its endpoint, which the recorder pauses; a failure of the
 * last attempt fails it; any other failure is retried after the back-off, or after the receiver's
 * Retry-After on a 429 or 503 when that is longer (and never before it).
 */
export function decideAttempt(
  delivery: Pick<ClaimedDelivery, 'id' | 'endpoint_id' | 'attempts'>,
  started: Date,
  outcome: HttpOutcome,
  policy: RetryPolicy,
  now: number = Date.now(),
  random: () => number = Math.random,
): AttemptRecord {
  const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const gone = outcome.status === 410;
  let status: AttemptRecord['status'] = 'PENDING';
  let nextAttemptAt: Date | null = null;
  let retryNotBefore: Date | null = null;
  if (succeeded) status = 'SUCCEEDED';
  else if (gone) status = 'PENDING'; // parked with the paused endpoint; resumes when it is reactivated
  else if (delivery.attempts >= policy.maxAttempts) status = 'FAILED';
  else {
    let delay = retryDelayMs(delivery.attempts, policy.retryBaseMs, random);
    if (outcome.status === 429 || outcome.status === 503) {
      const asked = parseRetryAfter(outcome.retryAfter, now);
      if (asked !== null) {
        delay = Math.max(delay, asked);
        retryNotBefore = new Date(now + asked);
      }
    }
    nextAttemptAt = new Date(now + delay);
  }
  return {
    deliveryId: delivery.id,
    endpointId: delivery.endpoint_id,
    attempt: delivery.attempts,
    startedAt: started,
    durationMs: outcome.durationMs,
    succeeded,
    responseStatus: outcome.status,
    error: outcome.error ?? (succeeded ? null : describeStatus(outcome.status!)),
    status,
    nextAttemptAt,
    retryNotBefore,
    gone,
  };
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  if (status === 410) return 'HTTP 410 Gone: endpoint paused';
  return `HTTP ${status}`;
}

/** Attempt outcomes, and for a success how long after the event it arrived (the payload says when the event happened). */
export function countAttempt(record: AttemptRecord, body: string): void {
  const outcome = record.succeeded ? 'succeeded' : record.gone ? 'parked' : record.status === 'FAILED' ? 'failed' : 'retrying';
  webhookDeliveryAttempts.inc({ outcome });
  if (!record.succeeded) return;
  const createdAt = Date.parse(/"createdAt":"([^"]+)"/.exec(body)?.[1] ?? '');
  if (Number.isFinite(createdAt)) webhookDeliveryLag.observe(Math.max(0, (Date.now() - createdAt) / 1000));
}
