import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sharedContract } from './contract';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes as received, as a string. */
  body: string;
  json: any;
  at: number;
  /** Which TCP connection carried it (numbered in order of connection). */
  socket: number;
}

export type Responder = (request: ReceivedWebhook, res: ServerResponse) => unknown;

/**
 * A merchant's receiver on 127.0.0.1: records every POST with its raw body and answers as each
 * test tells it to (per path), 200 by default.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  /** Requests being answered right now, and the most there ever were at once. */
  open = 0;
  maxOpen = 0;
  private readonly socketIds = new WeakMap<object, number>();
  private readonly responders = new Map<string, Responder>();
  private server: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.open += 1;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      res.on('close', () => (this.open -= 1));
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const entry = { path: req.url ?? '', headers: req.headers, body, json, at: Date.now(), socket: this.socketIds.get(req.socket) ?? 0 };
        this.received.push(entry);
        if (req.headers['x-webhook-id'] !== undefined) this.checkContract(entry);
        const responder = this.responders.get(entry.path);
        if (responder) void responder(entry, res);
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.server.on('connection', (socket) => this.socketIds.set(socket, ++this.connections));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** Answers requests to `path` with `responder` (a status, or a function for full control). */
  respond(path: string, responder: Responder | number): void {
    this.responders.set(path, typeof responder === 'number' ? (_r, res) => void res.writeHead(responder).end() : responder);
  }

  /** Answers the next `statuses.length` requests to `path` with these statuses, then 200. */
  respondInSequence(path: string, statuses: (number | { status: number; headers: Record<string, string> })[]): void {
    let i = 0;
    this.respond(path, (_r, res) => {
      const next = statuses[i++] ?? 200;
      if (typeof next === 'number') res.writeHead(next).end();
      else res.writeHead(next.status, next.headers).end();
    });
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /**
   * Closes the server, and fails (so the suite's afterAll fails) when any delivery received broke
   * the webhook contract in openapi.yaml: every suite using a receiver checks every payload it got.
   */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.violations.length) {
      throw new Error(`webhook deliveries broke openapi.yaml:\n${this.violations.slice(0, 5).join('\n')}`);
    }
  }

  /** Deliveries that did not match the webhook schemas or signature headers of openapi.yaml. */
  readonly violations: string[] = [];
  /** How many deliveries were checked against the contract. */
  checked = 0;

  private checkContract(entry: ReceivedWebhook): void {
    this.checked += 1;
    try {
      sharedContract().checkWebhook(entry.json, entry.headers);
    } catch (error) {
      this.violations.push((error as Error).message);
    }
  }
}

/**
 * What a merchant's receiver does (docs/webhooks.md): recompute the HMAC over `<timestamp>.<raw
 * body>` with the secret, compare in constant time against each `v1=` signature, and refuse a
 * timestamp more than 300 s away. Returns which of the given secrets a signature verified with.
 */
export function verifyWebhook(request: ReceivedWebhook, secrets: string[], toleranceSeconds = 300): boolean[] {
  const timestamp = String(request.headers['x-webhook-timestamp'] ?? '');
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return secrets.map(() => false);
  const signatures = String(request.headers['x-webhook-signature'] ?? '')
    .split(' ')
    .filter((part) => part.startsWith('v1='))
    .map((part) => Buffer.from(part.slice(3), 'utf8'));
  return secrets.map((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex'), 'utf8');
    return signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  });
}
