import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeWholeFile } from '../whole-file';
import { OutgoingSms, SmsSender } from './sms-sender';

/**
 * SMS_PROVIDER=outbox (the default): each text is written as a JSON file `{to, body, createdAt}` in
 * SMS_OUTBOX_DIR, for development and tests; nothing leaves the machine. A file appears whole or not at
 * all (writeWholeFile), so a reader of the folder never parses half a text.
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
    await writeWholeFile(dir, name, `${JSON.stringify({ to: sms.to, body: sms.body, createdAt: createdAt.toISOString() }, null, 2)}\n`);
  }
}
