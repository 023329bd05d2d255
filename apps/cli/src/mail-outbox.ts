import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** One e-mail of the development outbox, as `npm run cli -- mail:list` shows it. */
export interface OutboxMessage {
  to: string;
  subject: string;
  date: string | null;
  file: string;
}

/**
 * The `.eml` files the mailer wrote to MAIL_OUTBOX_DIR (no SMTP_URL: libs/mail/src/mailer.service.ts), newest
 * first: each file name starts with the time it was written in milliseconds. A missing folder is an empty outbox.
 */
export async function listOutbox(dir: string, limit: number): Promise<OutboxMessage[]> {
  const folder = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith('.eml'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const writtenAt = (name: string) => Number(/^(\d+)-/.exec(name)?.[1] ?? 0);
  names.sort((a, b) => writtenAt(b) - writtenAt(a) || b.localeCompare(a));
  return Promise.all(
    names.slice(0, limit).map(async (name) => {
      const file = join(folder, name);
      const headers = headersOf(await readFile(file, 'utf8'));
      return { to: headers.to ?? '', subject: headers.subject ?? '', date: headers.date ?? null, file };
    }),
  );
}

/** The message's header fields, unfolded, names in lower case, RFC 2047 encoded words decoded. */
function headersOf(raw: string): Record<string, string> {
  const end = raw.search(/\r?\n\r?\n/);
  const head = (end === -1 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] ??= decodeWords(line.slice(colon + 1).trim());
  }
  return headers;
}

/** `=?UTF-8?B?...?=` and `=?UTF-8?Q?...?=` (RFC 2047), as nodemailer writes non-ASCII subjects and names. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, charset: string, kind: string, text: string) => {
      const bytes =
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
      return new TextDecoder(charset.toLowerCase() === 'utf-8' ? 'utf-8' : charset).decode(bytes);
    });
}
