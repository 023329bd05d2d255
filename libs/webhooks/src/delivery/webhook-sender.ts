import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/core';
import type { TargetResult } from '../targets/webhook-target-guard';
import type { ClaimedDelivery } from './delivery-leases';
import { OpenedSecrets } from './opened-secrets';
import { HttpOutcome, WEBHOOK_USER_AGENT, WebhookHttpClient } from './webhook-http-client';
import { signatureHeader } from './webhook-signer';

/**
 * One attempt on the wire: the delivery's body, signed with the endpoint's secrets (both during a
 * rotation's grace period), POSTed to the address the target guard checked (docs/webhooks.md,
 * Request format and signature). Never throws for the receiver's sake: a refused target or a failed
 * exchange is an outcome like any status.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly http: WebhookHttpClient,
    private readonly secrets: OpenedSecrets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `checkedAt`: when the target was checked, which a refusal's duration counts from. */
  async send(delivery: ClaimedDelivery, target: TargetResult, checkedAt: number): Promise<HttpOutcome> {
    if (!target.ok) return { status: null, error: `refused before connecting: ${target.reason}`, retryAfter: undefined, durationMs: Date.now() - checkedAt };
    const timestamp = Math.floor(Date.now() / 1000);
    const endpoint = { id: delivery.endpoint_id, accountId: delivery.account_id };
    const sealed = delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
    const secrets = sealed.map((secret) => this.secrets.open(endpoint, secret));
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Webhook-Id': delivery.event_id,
      'X-Webhook-Timestamp': String(timestamp),
      'X-Webhook-Signature': signatureHeader(secrets, timestamp, delivery.body),
    };
    return this.http.post(target.target, headers, Buffer.from(delivery.body, 'utf8'), this.config.webhookTimeoutMs, delivery.endpoint_id);
  }
}
