import { KeyRing, sealContext, SealedColumn } from '@app/core';

/**
 * Webhook signing secrets (current and previous) are kept sealed under the key ring for their
 * endpoint and account (docs/secrets.md): a database reader cannot sign events for a merchant. The
 * previous secret is the former current one moved within its row, so both share one context.
 */
function context(endpoint: { id: string; accountId: string }): string {
  return sealContext('webhook_endpoints.secret', endpoint.id, endpoint.accountId);
}

export function sealWebhookSecret(keyRing: KeyRing, endpoint: { id: string; accountId: string }, secret: string): string {
  return keyRing.encrypt(secret, context(endpoint));
}

/** The secret in clear. */
export function openWebhookSecret(keyRing: KeyRing, endpoint: { id: string; accountId: string }, stored: string): string {
  return keyRing.decrypt(stored, context(endpoint));
}

/** Both secret columns, for `encryption:rotate`. */
export const WEBHOOK_SEALED_COLUMNS: SealedColumn[] = ['secret', 'previous_secret'].map((column) => ({
  table: 'webhook_endpoints',
  column,
  key: ['id'],
  contextColumns: ['account_id'],
  context: (row) => context({ id: row.id, accountId: row.account_id }),
}));
