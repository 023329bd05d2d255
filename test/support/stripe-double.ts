import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  params: URLSearchParams;
}

/**
 * A local stand-in for the part of Stripe's API we call: `POST /v1/checkout/sessions`, form-encoded,
 * Bearer-authenticated, honouring Idempotency-Key, answering Stripe's JSON shapes and errors.
 */
export class StripeDouble {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, Record<string, any>>();
  private readonly byIdempotencyKey = new Map<string, Record<string, any>>();
  /** When set, every call fails like an outage (Stripe's 500 api_error). */
  down = false;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const params = new URLSearchParams(body);
        this.requests.push({ method: req.method!, path: req.url!, headers: req.headers, params });
        const reply = (status: number, payload: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
          res.end(JSON.stringify(payload));
        };
        if (this.down) return reply(500, { error: { type: 'api_error', message: 'Stripe is down (double)' } });
        if (!/^Bearer sk_test_/.test(req.headers.authorization ?? '')) {
          return reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
        }
        if (req.method === 'POST' && req.url === '/v1/checkout/sessions') return reply(200, this.createSession(req, params));
        reply(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url})` } });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private createSession(req: IncomingMessage, params: URLSearchParams) {
    const key = req.headers['idempotency-key'] as string | undefined;
    if (key && this.byIdempotencyKey.has(key)) return this.byIdempotencyKey.get(key)!;
    const id = `cs_test_${randomBytes(12).toString('hex')}`;
    const session = {
      id,
      object: 'checkout.session',
      mode: params.get('mode'),
      status: 'open',
      payment_status: 'unpaid',
      url: `https://checkout.stripe.test/c/pay/${id}`,
      amount_total: Number(params.get('line_items[0][price_data][unit_amount]')) * Number(params.get('line_items[0][quantity]')),
      currency: params.get('line_items[0][price_data][currency]'),
      client_reference_id: params.get('client_reference_id'),
      metadata: { topupId: params.get('metadata[topupId]'), accountId: params.get('metadata[accountId]') },
      success_url: params.get('success_url'),
      cancel_url: params.get('cancel_url'),
    };
    this.sessions.set(id, session);
    if (key) this.byIdempotencyKey.set(key, session);
    return session;
  }
}
