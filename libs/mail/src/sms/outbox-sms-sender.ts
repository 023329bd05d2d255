import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { OutgoingSms, SmsSender } from './sms-sender';

/**
 * SMS_PROVIDER=outbox (the default): each text is written as a JSON file `{to, body, createdAt}` in
 * SMS_OUTBOX_DIR, for development and tests; nothing leaves the machine.
 */
export class OutboxSmsSender extends SmsSender {
  constructor(
    private readonly dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
  }

  async send(sms: OutgoingSms): Promise<void> {
    const createdAt = this.now();
    const dir = resolve(this.dir);
    await mkdir(dir, { recursive: true });
    const name = `${createdAt.getTime()}-${sms.reference.replace(/[^A-Za-z0-9_-]/g, '')}.json`;
    await writeFile(join(dir, name), `${JSON.stringify({ to: sms.to, body: sms.body, createdAt: createdAt.toISOString() }, null, 2)}\n`);
  }
}
