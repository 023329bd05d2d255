import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '@app/core';
import { Mailer } from './mailer.service';
import { OutboxSmsSender } from './sms/outbox-sms-sender';
import { writeWholeFile } from './whole-file';

// The module object itself, which the writers' named imports read their functions from at each call (a
// namespace import would be a frozen copy that cannot be spied on).
const fsPromises: typeof import('node:fs/promises') = require('node:fs/promises');

/**
 * The development outboxes (no SMTP_URL; SMS_PROVIDER=outbox) are read by `mail:list` and by tests while the
 * service keeps writing to them. Each write is held half-way here, so what a reader would find at that moment
 * is looked at, not raced for.
 */
const writers = [
  {
    what: 'an e-mail (MAIL_OUTBOX_DIR)',
    write: async (dir: string) => {
      const mailer = new Mailer({ smtpUrl: null, mailFrom: 'Rewards <rewards@example.com>', mailOutboxDir: dir } as unknown as AppConfig);
      try {
        await mailer.send({ fromName: 'Acme', to: 'partial@example.com', subject: 'Your reward', html: '<p>Hello</p>', text: 'Hello', reference: 'partial@example.com' });
      } finally {
        mailer.onApplicationShutdown();
      }
    },
    finalName: /^\d+-partial@example\.com\.eml$/,
    whole: (content: string) => {
      expect(content).toMatch(/^To: partial@example\.com$/m);
      expect(content.trimEnd()).toMatch(/--$/); // the closing boundary of the multipart body
    },
  },
  {
    what: 'a text (SMS_OUTBOX_DIR)',
    write: (dir: string) => new OutboxSmsSender(dir).send({ to: '+14155550123', body: 'Your reward is waiting', reference: 'rwd_partial' }),
    finalName: /^\d+-rwd_partial\.json$/,
    whole: (content: string) => expect(JSON.parse(content)).toMatchObject({ to: '+14155550123', body: 'Your reward is waiting' }),
  },
];

describe('the development outboxes: a message appears whole or not at all', () => {
  it.each(writers)('$what: while its bytes are written the folder holds only a hidden name, then the whole file', async ({ write, finalName, whole }) => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let halfWritten!: () => void;
    const started = new Promise<void>((resolve) => (halfWritten = resolve));
    const realWriteFile = fsPromises.writeFile;
    // The first half of the bytes is on disk, the rest waits for the test.
    const spy = jest.spyOn(fsPromises, 'writeFile').mockImplementation(async (file, data) => {
      const bytes = Buffer.from(data as string | Buffer);
      await realWriteFile(file, bytes.subarray(0, bytes.length >> 1));
      halfWritten();
      await held;
      await realWriteFile(file, bytes);
    });
    try {
      const written = write(dir);
      await started;
      const during = readdirSync(dir);
      expect(during).toEqual([expect.stringMatching(/^\.writing-[0-9a-f-]{36}$/)]);
      release();
      await written;
      const after = readdirSync(dir);
      expect(after).toEqual([expect.stringMatching(finalName)]);
      whole(readFileSync(join(dir, after[0]), 'utf8'));
    } finally {
      spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a write that fails part-way (a full disk) leaves nothing in the folder, and the failure reaches the caller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const realWriteFile = fsPromises.writeFile;
    const spy = jest.spyOn(fsPromises, 'writeFile').mockImplementation(async (file, data) => {
      await realWriteFile(file, Buffer.from(data as string).subarray(0, 3));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    try {
      await expect(writeWholeFile(dir, 'a.json', '{"to":"+14155550123"}')).rejects.toMatchObject({ code: 'ENOSPC' });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
