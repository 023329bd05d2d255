import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/core';
import { DeliveryScheduler } from './delivery-scheduler';
import { HttpOutcome, WEBHOOK_USER_AGENT, WebhookHttpClient } from './webhook-http-client';
import { parseRetryAfter, retryDelayMs } from './retry-schedule';
import { signatureHeader } from './webhook-signer';
import { WebhookTargetGuard } from '../targets/webhook-target-guard';

/** How long a claimed attempt keeps others off the delivery; longer than any attempt can take. */
const LEASE_MARGIN_MS = 60_000;

interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  body: string;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
}

/**
 * One attempt at one delivery: claim it (so no other worker sends it at the same time), check the
 * target again, POST the signed body, record the attempt and decide what comes next.
 */
@Injectable()
export class WebhookDeliverer {
  private readonly logger = new Logger(WebhookDeliverer.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly guard: WebhookTargetGuard,
    private readonly http: WebhookHttpClient,
    private readonly scheduler: DeliveryScheduler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async attempt(deliveryId: string): Promise<void> {
    const claimed = await this.claim(deliveryId);
    if (!claimed) return;

    const started = new Date();
    const outcome = await this.send(claimed);
    const succeeded = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const gone = outcome.status === 410;

    let status: 'PENDING' | 'SUCCEEDED' | 'FAILED' = 'PENDING';
    let nextAttemptAt: Date | null = null;
    if (succeeded) status = 'SUCCEEDED';
    else if (gone) status = 'PENDING'; // parked with the paused endpoint; resumes when it is reactivated
    else if (claimed.attempts >= this.config.webhookMaxAttempts) status = 'FAILED';
    else {
      let delay = retryDelayMs(claimed.attempts, this.config.webhookRetryBaseMs);
      if (outcome.status === 429 || outcome.status === 503) {
        const asked = parseRetryAfter(outcome.retryAfter);
        if (asked !== null) delay = Math.max(delay, asked);
      }
      nextAttemptAt = new Date(Date.now() + delay);
    }

    const error = outcome.error ?? (succeeded ? null : describeStatus(outcome.status!));
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        // The endpoint (and its deliveries) may have been deleted during the attempt: then there is nothing to record.
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error)
         SELECT $1::text, $2::int, $3::timestamptz, $4::int, $5::boolean, $6::int, $7::text
          WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1::text)
         ON CONFLICT (delivery_id, attempt) DO NOTHING`,
        [claimed.id, claimed.attempts, started, outcome.durationMs, succeeded, outcome.status, error],
      );
      await manager.query(
        `UPDATE webhook_deliveries SET status = $2, response_status = $3, last_error = $4, next_attempt_at = $5
          WHERE id = $1 AND attempts = $6`,
        [claimed.id, status, outcome.status, error, nextAttemptAt, claimed.attempts],
      );
      if (gone) {
        await manager.query(
          `UPDATE webhook_endpoints SET active = false, paused_reason = $2, updated_at = clock_timestamp() WHERE id = $1`,
          [claimed.endpoint_id, 'The receiver answered 410 Gone; reactivate the endpoint to resume deliveries.'],
        );
      }
    });
    if (gone) this.logger.warn({ endpointId: claimed.endpoint_id, deliveryId }, 'receiver answered 410; endpoint paused');
    if (nextAttemptAt) await this.scheduler.enqueue(claimed.id, claimed.attempts + 1, nextAttemptAt.getTime() - Date.now());
  }

  /**
   * Takes the delivery for one attempt when it is pending, due and its endpoint active, leasing it
   * (next_attempt_at moves past the longest possible attempt) so a duplicate job or the sweep
   * cannot send it concurrently. A due delivery of a paused endpoint is parked instead.
   */
  private async claim(deliveryId: string): Promise<ClaimedDelivery | null> {
    const leaseMs = this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
    const [rows] = (await this.dataSource.query(
      `UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1, last_attempt_at = clock_timestamp(),
              next_attempt_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
         FROM webhook_endpoints e
        WHERE d.id = $1 AND e.id = d.endpoint_id AND e.active AND d.status = 'PENDING'
          AND d.next_attempt_at <= clock_timestamp() + interval '1 second'
      RETURNING d.id, d.attempts, d.event_id, d.payload::text AS body, e.id AS endpoint_id, e.url, e.secret,
                CASE WHEN e.previous_secret_expires_at > clock_timestamp() THEN e.previous_secret END AS previous_secret`,
      [deliveryId, leaseMs],
    )) as [ClaimedDelivery[], number];
    if (rows.length) return rows[0];
    await this.dataSource.query(
      `UPDATE webhook_deliveries d SET next_attempt_at = NULL
         FROM webhook_endpoints e
        WHERE d.id = $1 AND e.id = d.endpoint_id AND NOT e.active AND d.status = 'PENDING'
          AND d.next_attempt_at <= clock_timestamp() + interval '1 second'`,
      [deliveryId],
    );
    return null;
  }

  private async send(delivery: ClaimedDelivery): Promise<HttpOutcome> {
    const checkedAt = Date.now();
    // Checked again at every attempt: the name may resolve elsewhere now than at creation.
    const target = await this.guard.resolve(delivery.url);
    if (!target.ok) return { status: null, error: `refused before connecting: ${target.reason}`, retryAfter: undefined, durationMs: Date.now() - checkedAt };
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Webhook-Id': delivery.event_id,
      'X-Webhook-Timestamp': String(timestamp),
      'X-Webhook-Signature': signatureHeader(secrets, timestamp, delivery.body),
    };
    try {
      return await this.http.post(target.target, headers, Buffer.from(delivery.body, 'utf8'), this.config.webhookTimeoutMs, delivery.endpoint_id);
    } catch (error) {
      return { status: null, error: (error as Error).message.slice(0, 300), retryAfter: undefined, durationMs: Date.now() - checkedAt };
    }
  }
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  if (status === 410) return 'HTTP 410 Gone: endpoint paused';
  return `HTTP ${status}`;
}
