import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
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

/** Most connections open at once to one endpoint (from one process); the deliverer sends no more than this at a time. */
export const MAX_SOCKETS_PER_ENDPOINT = 32;
/**
 * An idle kept-alive connection is closed after this; shorter than the usual server keep-alive
 * timeouts (5 s in Node), so we rarely write to a connection the receiver is closing.
 */
const IDLE_SOCKET_MS = 4_000;
/** A connection pool not used for this long is dropped (its endpoint is quiet, deleted or moved). */
const IDLE_AGENT_MS = 60_000;
const AGENT_SWEEP_MS = 30_000;

type Agent = http.Agent | https.Agent;

interface PooledAgent {
  agent: Agent;
  lastUsed: number;
}

/**
 * POSTs to a pinned address: the socket goes to the address the guard checked, whatever DNS says
 * now (the lookup hook answers with it); TLS still verifies the certificate against the host name.
 * Connections are kept alive in one pool per (endpoint, URL origin, pinned address): a pool only
 * ever connects to the one address it was made for, so a reused connection never reaches an
 * address that was not checked, and a new address after a DNS change gets a new pool. Redirects
 * are never followed (node's http does not), and the whole exchange is bounded by the timeout.
 */
@Injectable()
export class WebhookHttpClient implements OnApplicationShutdown {
  private readonly agents = new Map<string, PooledAgent>();
  private readonly sweeper = setInterval(() => this.dropIdleAgents(), AGENT_SWEEP_MS).unref();

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    for (const { agent } of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** How many connection pools are open (for tests and diagnostics). */
  get poolCount(): number {
    return this.agents.size;
  }

  /**
   * One POST. `poolKey` names whose connection pool to use (the endpoint id); connections are
   * shared only between requests with the same key, origin and pinned address.
   */
  async post(target: PinnedTarget, headers: Record<string, string>, body: Buffer, timeoutMs: number, poolKey: string): Promise<HttpOutcome> {
    const started = Date.now();
    const first = await this.once(target, headers, body, timeoutMs, poolKey, started);
    // A kept-alive connection the receiver closed just as we wrote to it: nothing was answered, so the
    // request is sent again at once on a fresh connection (Node's documented pattern for reused sockets).
    if (first.staleSocket && Date.now() - started < timeoutMs) return this.once(target, headers, body, timeoutMs, null, started);
    return first;
  }

  private once(
    target: PinnedTarget,
    headers: Record<string, string>,
    body: Buffer,
    timeoutMs: number,
    poolKey: string | null,
    started: number,
  ): Promise<HttpOutcome & { staleSocket?: boolean }> {
    const { url, hostname } = target;
    const isHttps = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: 'POST',
      host: hostname,
      port: url.port ? Number(url.port) : isHttps ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, 'Content-Length': String(body.length), Host: url.host },
      // null: a one-off connection, outside the pools.
      agent: poolKey === null ? false : this.agentFor(target, poolKey),
      lookup: pinnedLookup(target),
      servername: isIP(hostname) ? undefined : hostname,
    };
    const remaining = Math.max(1, timeoutMs - (Date.now() - started));

    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<HttpOutcome, 'durationMs'> & { staleSocket?: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, durationMs: Date.now() - started });
      };
      const request = (isHttps ? https : http).request(options, (response) => {
        const retryAfter = response.headers['retry-after'];
        // The body is read and dropped (bounded by the timeout): only the status matters, and a fully
        // read response lets the connection be reused.
        response.on('data', () => undefined);
        response.on('end', () => finish({ status: response.statusCode ?? null, error: null, retryAfter }));
        response.on('error', () => finish({ status: response.statusCode ?? null, error: null, retryAfter }));
      });
      const timer = setTimeout(() => {
        finish({ status: null, error: `timed out after ${timeoutMs} ms`, retryAfter: undefined });
        request.destroy(); // the connection is not returned to the pool
      }, remaining);
      request.on('error', (error: NodeJS.ErrnoException) => {
        const staleSocket = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        finish({ status: null, error: shortError(error), retryAfter: undefined, staleSocket });
      });
      request.end(body);
    });
  }

  private agentFor(target: PinnedTarget, poolKey: string): Agent {
    const key = `${poolKey} ${target.url.protocol}//${target.url.host} ${target.address}`;
    const now = Date.now();
    let pooled = this.agents.get(key);
    if (!pooled) {
      const options: https.AgentOptions = {
        keepAlive: true,
        maxSockets: MAX_SOCKETS_PER_ENDPOINT,
        maxFreeSockets: MAX_SOCKETS_PER_ENDPOINT,
        timeout: IDLE_SOCKET_MS,
        scheduling: 'lifo',
        // Agent options take precedence over request options in node: every socket of this pool goes to the checked address.
        lookup: pinnedLookup(target),
      };
      pooled = { agent: target.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options), lastUsed: now };
      this.agents.set(key, pooled);
    }
    pooled.lastUsed = now;
    return pooled.agent;
  }

  private dropIdleAgents(): void {
    const cutoff = Date.now() - IDLE_AGENT_MS;
    for (const [key, pooled] of this.agents) {
      if (pooled.lastUsed < cutoff && Object.keys(pooled.agent.sockets).length === 0) {
        // Only idle connections remain; destroy closes them.
        pooled.agent.destroy();
        this.agents.delete(key);
      }
    }
  }
}

function pinnedLookup({ address, family }: PinnedTarget): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function shortError(error: NodeJS.ErrnoException): string {
  const text = error.code ? `${error.code}: ${error.message}` : error.message;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
