/** Just enough MIME to read what nodemailer sends: headers, and the text and HTML parts. */
export interface ParsedMail {
  raw: string;
  headers: Record<string, string>;
  subject: string;
  from: string;
  to: string;
  text: string;
  html: string;
}

function splitHead(part: string): [Record<string, string>, string] {
  const index = part.search(/\r?\n\r?\n/);
  const head = index === -1 ? part : part.slice(0, index);
  const body = index === -1 ? '' : part.slice(index).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return [headers, body];
}

function decodeBody(body: string, encoding = ''): string {
  if (/quoted-printable/i.test(encoding)) {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=) in headers. */
function decodeHeader(value = ''): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
  );
}

export function parseMime(raw: string): ParsedMail {
  const [headers, body] = splitHead(raw);
  const mail: ParsedMail = {
    raw,
    headers,
    subject: decodeHeader(headers.subject),
    from: decodeHeader(headers.from),
    to: decodeHeader(headers.to),
    text: '',
    html: '',
  };
  const collect = (partHeaders: Record<string, string>, partBody: string) => {
    const type = partHeaders['content-type'] ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (boundary) {
      for (const part of partBody.split(`--${boundary}`).slice(1)) {
        if (part.startsWith('--')) break;
        collect(...splitHead(part.replace(/^\r?\n/, '')));
      }
    } else if (/text\/html/i.test(type)) mail.html = decodeBody(partBody, partHeaders['content-transfer-encoding']);
    else if (/text\/plain/i.test(type)) mail.text = decodeBody(partBody, partHeaders['content-transfer-encoding']);
  };
  collect(headers, body);
  return mail;
}
