'use strict';
// What the service talks to besides its stores: an SMTP sink (counts what each recipient received) and
// a webhook receiver that checks every signature, refuses a fraction of deliveries on purpose, and can
// go down (connections refused) and come back on the same port.
const crypto = require('node:crypto');
const http = require('node:http');
const { SMTPServer } = require('smtp-server');

class SmtpSink {
  constructor() {
    this.byRecipient = new Map();
    this.total = 0;
  }

  async start() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        stream.on('data', () => {});
        stream.on('end', () => {
          for (const rcpt of session.envelope.rcptTo) {
            const address = rcpt.address.toLowerCase();
            this.byRecipient.set(address, (this.byRecipient.get(address) || 0) + 1);
          }
          this.total += 1;
          callback();
        });
      },
    });
    // A killed worker resets its SMTP connections; that is the sender's problem, not the sink's.
    this.server.on('error', () => {});
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${this.server.server.address().port}`;
  }

  stop() {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

class WebhookReceiver {
  /** @param failRate share of deliveries answered 500 on purpose */
  constructor(failRate) {
    this.failRate = failRate;
    this.secrets = new Map(); // path -> secret
    this.received = new Map(); // `${path} ${eventId}` -> times accepted
    this.accepted = 0;
    this.refused = 0;
    this.badSignatures = [];
    this.sockets = new Set();
    this.up = false;
  }

  async start(port = 0) {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('clientError', (_error, socket) => socket.destroy());
    this.server.keepAliveTimeout = 5_000;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
    this.port = this.server.address().port;
    this.up = true;
    return `http://127.0.0.1:${this.port}`;
  }

  /** Down: the port refuses connections and open ones are cut, as when the receiver's host dies. */
  async stop() {
    if (!this.up) return;
    this.up = false;
    const closed = new Promise((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  handle(req, res) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const secret = this.secrets.get(req.url);
      const timestamp = req.headers['x-webhook-timestamp'];
      const signatures = String(req.headers['x-webhook-signature'] || '')
        .split(' ')
        .filter((s) => s.startsWith('v1='))
        .map((s) => s.slice(3));
      const expected = secret ? crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex') : null;
      const valid = expected !== null && signatures.some((s) => s.length === expected.length && crypto.timingSafeEqual(Buffer.from(s), Buffer.from(expected)));
      let eventId = req.headers['x-webhook-id'];
      try {
        eventId = JSON.parse(raw.toString('utf8')).id;
      } catch {
        // keep the header's id
      }
      if (!valid) {
        this.badSignatures.push({ path: req.url, eventId });
        res.writeHead(400).end();
        return;
      }
      if (Math.random() < this.failRate) {
        this.refused += 1;
        res.writeHead(500).end();
        return;
      }
      const key = `${req.url} ${eventId}`;
      this.received.set(key, (this.received.get(key) || 0) + 1);
      this.accepted += 1;
      res.writeHead(200).end();
    });
  }
}

module.exports = { SmtpSink, WebhookReceiver };
