import { createHmac } from 'node:crypto';

/**
 * The signature (docs/webhooks.md): lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the whole
 * secret string (`whsec_` prefix included) as UTF-8.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** `v1=<hex>`, or during a rotation grace period `v1=<new> v1=<old>`: a receiver accepts if any one matches. */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((secret) => `v1=${signWebhook(secret, timestamp, body)}`).join(' ');
}
