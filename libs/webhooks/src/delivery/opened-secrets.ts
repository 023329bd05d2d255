import { Injectable } from '@nestjs/common';
import { KeyRing } from '@app/core';
import { openWebhookSecret } from '../webhook-secrets';

/** Opened signing secrets kept by one process. */
const OPENED_SECRETS_MAX = 1_000;

/**
 * Endpoint signing secrets in clear, opened once per sealed value rather than once per attempt (an
 * AES-GCM decryption each; docs/secrets.md). Keyed by the sealed text with its endpoint, so a
 * rotation (a new sealed value) is opened afresh; emptied when it grows past OPENED_SECRETS_MAX.
 */
@Injectable()
export class OpenedSecrets {
  private readonly opened = new Map<string, string>();

  constructor(private readonly keyRing: KeyRing) {}

  open(endpoint: { id: string; accountId: string }, sealed: string): string {
    const key = `${endpoint.id} ${endpoint.accountId} ${sealed}`;
    let opened = this.opened.get(key);
    if (opened === undefined) {
      opened = openWebhookSecret(this.keyRing, endpoint, sealed);
      if (this.opened.size >= OPENED_SECRETS_MAX) this.opened.clear();
      this.opened.set(key, opened);
    }
    return opened;
  }
}
