import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMime, ParsedMail } from './mime';

/** How the sink refuses a recipient at RCPT TO: the reply code and text, and how many times (then it accepts). */
export interface RecipientRefusal {
  code: number;
  text: string;
  times: number;
}

/**
 * A real SMTP server in the test process. `failNext(n)` answers the next n messages with a
 * temporary failure (451), as a mail relay under load does. `refuseRecipient` refuses an address at
 * RCPT TO, permanently (550: no such mailbox) or temporarily (450: mailbox busy, greylisting).
 */
export class SmtpSink {
  readonly messages: ParsedMail[] = [];
  /** Every RCPT TO the sink refused, in order: the address and the reply it gave. */
  readonly refused: { to: string; reply: string }[] = [];
  private failures = 0;
  private readonly refusals = new Map<string, RecipientRefusal>();
  private server?: SMTPServer;
  private waiters: (() => void)[] = [];

  async start(): Promise<string> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const to = address.address.toLowerCase();
        const refusal = this.refusals.get(to);
        if (!refusal || refusal.times <= 0) return callback();
        refusal.times -= 1;
        this.refused.push({ to, reply: `${refusal.code} ${refusal.text}` });
        return callback(Object.assign(new Error(refusal.text), { responseCode: refusal.code }));
      },
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.failures > 0) {
            this.failures -= 1;
            const error = Object.assign(new Error('Temporary failure, try again later'), { responseCode: 451 });
            return callback(error);
          }
          this.messages.push(parseMime(Buffer.concat(chunks).toString('utf8')));
          this.waiters.splice(0).forEach((wake) => wake());
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server!.server.address() as AddressInfo).port}`;
  }

  failNext(count: number): void {
    this.failures = count;
  }

  /** Refuses `email` at RCPT TO with `code` and `text`, the next `times` times (for good by default). */
  refuseRecipient(email: string, refusal: Partial<RecipientRefusal> = {}): void {
    this.refusals.set(email.toLowerCase(), { code: 550, text: '5.1.1 No such user here', times: Number.POSITIVE_INFINITY, ...refusal });
  }

  /** Waits for a message matching `predicate`. */
  async waitFor(predicate: (mail: ParsedMail) => boolean, timeoutMs = 20_000): Promise<ParsedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no matching e-mail within ${timeoutMs} ms; got: ${this.messages.map((m) => m.to).join(", ")}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
