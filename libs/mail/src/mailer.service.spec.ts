import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { SMTPServer, SMTPServerOptions } from 'smtp-server';
import type { AppConfig } from '@app/core';
import { connectToRelay, Mailer, OutgoingMail, relayPool } from './mailer.service';

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
  // A client that refuses the relay's certificate closes the connection mid-handshake, which the relay reports
  // as an error: expected of the relays with a certificate of the test's own, thrown for any other.
  server.on('error', (error) => {
    if (!options.cert) throw error;
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

  describe("the relay's certificate, checked over the connection the pool opens itself", () => {
    // A certificate authority of the test's own, and two certificates it signed: one for the name the
    // mailer dials (localhost), one for another name, made with openssl (.ci/run installs it when missing).
    const dir = mkdtempSync(join(tmpdir(), 'relay-tls-'));
    const pem = (name: string) => readFileSync(join(dir, name));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    beforeAll(() => {
      openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Relay test CA',
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
      for (const name of ['localhost', 'relay.example']) {
        openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
        writeFileSync(join(dir, `${name}.ext`), `subjectAltName=DNS:${name}\n`);
        openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-out', `${name}.pem`, '-extfile', `${name}.ext`);
      }
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** The Mailer's own pool settings and connector, trusting the test's authority as a relay's public one is trusted. */
    const poolTo = (url: string) => createTransport(relayPool(url, { tls: { ca: pem('ca.pem') } }));
    const send = (transport: ReturnType<typeof poolTo>, to: string) =>
      transport.sendMail({ from: 'rewards@example.com', to, subject: 'Your reward', text: 'Hello' }).then(
        () => 'sent',
        (error: Error) => error.message,
      );

    it.each([
      ['smtps://', true],
      ['smtp:// with STARTTLS', false],
    ])('%s: a certificate for the name dialled is taken; one for another name is refused before anything is sent', async (_label, secure) => {
      const right = await relay({ secure, key: pem('localhost.key'), cert: pem('localhost.pem') });
      const wrong = await relay({ secure, key: pem('relay.example.key'), cert: pem('relay.example.pem') });
      const scheme = secure ? 'smtps' : 'smtp';
      const transports = [poolTo(`${scheme}://localhost:${right.port}`), poolTo(`${scheme}://localhost:${wrong.port}`)];
      try {
        expect(await send(transports[0], 'right@example.com')).toBe('sent');
        expect(right.received).toEqual([{ to: 'right@example.com', secure: true }]);
        expect(await send(transports[1], 'wrong@example.com')).toMatch(/does not match certificate's altnames|Hostname\/IP does not match/);
        expect(wrong.received).toEqual([]);
      } finally {
        transports.forEach((t) => t.close());
        await Promise.all([right.close(), wrong.close()]);
      }
    });

    it('a certificate for the right name that no trusted authority signed is refused by the Mailer as configured from SMTP_URL', async () => {
      // The Mailer trusts the system's authorities only, and nothing in SMTP_URL says to accept this one.
      const sink = await relay({ secure: true, key: pem('localhost.key'), cert: pem('localhost.pem') });
      const mailer = mailerFor(`smtps://localhost:${sink.port}`);
      try {
        const error = (await mailer.send(mail('a@example.com')).catch((e: unknown) => e)) as Error;
        expect(error.message).toMatch(/unable to (verify the first certificate|get local issuer certificate)/);
        expect(sink.received).toEqual([]);
      } finally {
        mailer.onApplicationShutdown();
        await sink.close();
      }
    });
  });

  it('smtp:// sends in clear to a relay that does not offer STARTTLS; with ?requireTLS=true it refuses to', async () => {
    const clear = await relay({ disabledCommands: ['STARTTLS'] });
    const mailers = [mailerFor(`smtp://127.0.0.1:${clear.port}`), mailerFor(`smtp://127.0.0.1:${clear.port}?requireTLS=true`)];
    try {
      await mailers[0].send(mail('clear@example.com'));
      expect(clear.received).toEqual([{ to: 'clear@example.com', secure: false }]);
      const error = (await mailers[1].send(mail('required@example.com')).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/STARTTLS/);
      expect(clear.received.map((m) => m.to)).toEqual(['clear@example.com']);
    } finally {
      mailers.forEach((m) => m.onApplicationShutdown());
      await clear.close();
    }
  });
});
