import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import type { PinnedTarget } from '../targets/webhook-target-guard';

export interface HttpOutcome {
  /** The receiver's status; null when no response came (timeout, refused, TLS). */
  status: number | null;
  /** A short reason when there was no response. */
  error: string | null;
  retryAfter: string | undefined;
  durationMs: number;
}

export const WEBHOOK_USER_AGENT = 'RewardsWebhooks/1.0 (+https://docs.rewards.example/webhooks)';

/**
 * One POST to a pinned address: the socket goes to the address the guard checked, whatever DNS
 * says now (the lookup hook answers with it); TLS still verifies the certificate against the host
 * name. Redirects are never followed (node's http does not), and the whole exchange is bounded by
 * the timeout, not only the idle time.
 */
@Injectable()
export class WebhookHttpClient {
  post(target: PinnedTarget, headers: Record<string, string>, body: Buffer, timeoutMs: number): Promise<HttpOutcome> {
    const started = Date.now();
    const { url, hostname, address, family } = target;
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const isHttps = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: 'POST',
      host: hostname,
      port: url.port ? Number(url.port) : isHttps ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, 'Content-Length': String(body.length), Host: url.host },
      agent: false,
      lookup: pinned,
      servername: isIP(hostname) ? undefined : hostname,
    };

    return new Promise<HttpOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<HttpOutcome, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, durationMs: Date.now() - started });
      };
      const request = (isHttps ? https : http).request(options, (response) => {
        const retryAfter = response.headers['retry-after'];
        // The body is read and dropped (bounded by the timeout): only the status matters.
        response.on('data', () => undefined);
        response.on('end', () => finish({ status: response.statusCode ?? null, error: null, retryAfter }));
        response.on('error', () => finish({ status: response.statusCode ?? null, error: null, retryAfter }));
      });
      const timer = setTimeout(() => {
        finish({ status: null, error: `timed out after ${timeoutMs} ms`, retryAfter: undefined });
        request.destroy();
      }, timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        finish({ status: null, error: shortError(error), retryAfter: undefined });
      });
      request.end(body);
    });
  }
}

function shortError(error: NodeJS.ErrnoException): string {
  const text = error.code ? `${error.code}: ${error.message}` : error.message;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
