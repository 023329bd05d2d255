import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, SMTPServerOptions } from 'smtp-server';
import type { AppConfig } from '@app/core';
import { connectToRelay, Mailer, OutgoingMail } from './mailer.service';

/** A relay in this process: what it received, over how many connections, and whether each was TLS. */
async function relay(options: Partial<SMTPServerOptions> = {}, port = 0) {
  const received: { to: string; secure: boolean }[] = [];
  let connections = 0;
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    ...options,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo[0].address, secure: session.secure });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, received, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const mail = (to: string): OutgoingMail => ({ fromName: 'Acme', to, subject: 'Your reward', html: '<p>Hello</p>', text: 'Hello', reference: to });
const mailerFor = (smtpUrl: string) => new Mailer({ smtpUrl, mailFrom: 'Rewards <rewards@example.com>' } as AppConfig);

describe('Mailer over SMTP (docs/delivery.md, Connections to the relay)', () => {
  it('sends one message after another over the one connection it opened', async () => {
    const sink = await relay({ disabledCommands: ['STARTTLS'] });
    const mailer = mailerFor(`smtp://127.0.0.1:${sink.port}`);
    try {
      for (const to of ['a@example.com', 'b@example.com', 'c@example.com']) await mailer.send(mail(to));
      expect(sink.received.map((m) => m.to)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
      expect(sink.connections()).toBe(1);
    } finally {
      mailer.onApplicationShutdown();
      await sink.close();
    }
  });

  it("opens the relay's connection with Nagle's algorithm off, so a message's last write is not held for the relay's delayed ACK", async () => {
    const sink = await relay({ disabledCommands: ['STARTTLS'] });
    let socket: Socket | undefined;
    try {
      socket = await new Promise<Socket>((resolve) => connectToRelay({ host: '127.0.0.1', port: sink.port }, (_error, options) => resolve(options.connection)));
      await new Promise((resolve) => socket!.once('connect', resolve));
      // Node keeps the socket's TCP_NODELAY setting under this symbol (net.Socket#setNoDelay); it has no public getter.
      const noDelay = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'kSetNoDelay');
      expect(noDelay).toBeDefined();
      expect((socket as unknown as Record<symbol, unknown>)[noDelay!]).toBe(true);
      // …and it is how the Mailer's pool opens every connection (nodemailer keeps it as the pool's getSocket).
      const mailer = mailerFor(`smtp://127.0.0.1:${sink.port}`);
      expect((mailer as unknown as { transport: { transporter: { getSocket: unknown } } }).transport.transporter.getSocket).toBe(connectToRelay);
      mailer.onApplicationShutdown();
    } finally {
      socket?.destroy();
      await sink.close();
    }
  });

  it('speaks TLS over the connection it opens itself: smtps:// from the start, smtp:// after STARTTLS', async () => {
    const implicit = await relay({ secure: true });
    const upgraded = await relay();
    // The relays use smtp-server's own self-signed certificate.
    const mailers = [mailerFor(`smtps://127.0.0.1:${implicit.port}?tls.rejectUnauthorized=false`), mailerFor(`smtp://127.0.0.1:${upgraded.port}?tls.rejectUnauthorized=false`)];
    try {
      await mailers[0].send(mail('implicit@example.com'));
      await mailers[1].send(mail('starttls@example.com'));
      expect(implicit.received).toEqual([{ to: 'implicit@example.com', secure: true }]);
      expect(upgraded.received).toEqual([{ to: 'starttls@example.com', secure: true }]);
    } finally {
      mailers.forEach((m) => m.onApplicationShutdown());
      await Promise.all([implicit.close(), upgraded.close()]);
    }
  });

  it('fails each message with the reason, and no reply code, while the relay cannot be reached, and sends again once it can', async () => {
    const gone = await relay({ disabledCommands: ['STARTTLS'] });
    await gone.close();
    // One connection at most: a failed connect that kept its place in the pool would leave no room for the next.
    const mailer = mailerFor(`smtp://127.0.0.1:${gone.port}?maxConnections=1`);
    let back: Awaited<ReturnType<typeof relay>> | undefined;
    try {
      for (const to of ['a@example.com', 'b@example.com', 'c@example.com']) {
        const error = (await mailer.send(mail(to)).catch((e: unknown) => e)) as { message: string; responseCode?: number };
        expect(error.message).toContain('ECONNREFUSED');
        // No reply code: the reward's e-mail is tried again later (smtpRefusal, a temporary refusal).
        expect(error.responseCode).toBeUndefined();
      }
      back = await relay({ disabledCommands: ['STARTTLS'] }, gone.port);
      await mailer.send(mail('d@example.com'));
      expect(back.received.map((m) => m.to)).toEqual(['d@example.com']);
    } finally {
      mailer.onApplicationShutdown();
      await back?.close();
    }
  });
});
