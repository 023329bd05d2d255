import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TwilioRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The form-encoded body, parsed. */
  params: URLSearchParams;
}

/** An error answer the double gives for a number: the HTTP status and Twilio's numeric error code. */
export interface TwilioFailure {
  status: number;
  code: number;
  message: string;
  /** How many sends to that number it answers this way; every one when unset. */
  times?: number;
}

/**
 * A local stand-in for the one Twilio call the service makes (docs/delivery.md, SMS): creating a
 * Message, `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded `To`, `From` and
 * `Body`, HTTP Basic auth with the account SID and auth token. It answers 201 with a message resource
 * (`sid` SM…, `status` queued) or an error in Twilio's shape `{code, message, more_info, status}`:
 * 401 for wrong credentials, 400 21211 for a `To` that is not E.164, and whatever `fail` arranged for
 * a number. Written from the published wire format; it listens on 127.0.0.1 only.
 */
export class TwilioDouble {
  readonly requests: TwilioRequest[] = [];
  /** The messages it took, in order. */
  readonly messages: { sid: string; to: string; from: string; body: string }[] = [];
  private readonly failures = new Map<string, TwilioFailure>();
  private server?: Server;

  constructor(
    readonly accountSid = `AC${randomBytes(16).toString('hex')}`,
    readonly authToken = randomBytes(16).toString('hex'),
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => this.answer(req, body, res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Makes sends to `to` fail with `failure` (`times` of them, or all). */
  fail(to: string, failure: TwilioFailure): void {
    this.failures.set(to, { ...failure });
  }

  sentTo(to: string) {
    return this.messages.filter((m) => m.to === to);
  }

  private answer(req: IncomingMessage, body: string, res: import('node:http').ServerResponse): void {
    const params = new URLSearchParams(body);
    this.requests.push({ method: req.method!, path: req.url!, headers: req.headers, params });
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, code: number, message: string) =>
      reply(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

    const path = `/2010-04-01/Accounts/${this.accountSid}/Messages.json`;
    if (req.method !== 'POST' || req.url !== path) return error(404, 20404, `The requested resource ${req.url} was not found`);
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return error(401, 20003, 'Authentication Error - invalid username');
    if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? '')) return error(400, 20001, 'Body must be form-encoded');
    const [to, from, text] = [params.get('To'), params.get('From'), params.get('Body')];
    if (!to) return error(400, 21604, "A 'To' phone number is required.");
    if (!from) return error(400, 21603, "A 'From' phone number is required.");
    if (!text) return error(400, 21602, 'Message body is required.');
    if (!/^\+[1-9][0-9]{1,14}$/.test(to)) return error(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    const failure = this.failures.get(to);
    if (failure && (failure.times === undefined || failure.times > 0)) {
      if (failure.times !== undefined) failure.times -= 1;
      return error(failure.status, failure.code, failure.message);
    }
    const sid = `SM${randomBytes(16).toString('hex')}`;
    this.messages.push({ sid, to, from, body: text });
    const now = new Date().toUTCString();
    reply(201, {
      sid,
      account_sid: this.accountSid,
      to,
      from,
      body: text,
      status: 'queued',
      direction: 'outbound-api',
      num_segments: '1',
      date_created: now,
      date_updated: now,
      date_sent: null,
      error_code: null,
      error_message: null,
      api_version: '2010-04-01',
      uri: `/2010-04-01/Accounts/${this.accountSid}/Messages/${sid}.json`,
    });
  }
}
