import { isIP } from 'node:net';

/**
 * Which IP addresses a webhook may never be sent to (OWASP SSRF cheat sheet, case 2: the
 * destination is user-supplied and arbitrary). Pure functions, no I/O: the caller resolves a host
 * and asks about every address it got.
 */

type Range4 = [base: number, bits: number, reason: string];

const ipv4 = (text: string) => parseIPv4(text)!;

const FORBIDDEN_V4: Range4[] = [
  [ipv4('0.0.0.0'), 8, 'unspecified ("this network")'],
  [ipv4('10.0.0.0'), 8, 'private'],
  [ipv4('100.64.0.0'), 10, 'carrier-grade NAT'],
  [ipv4('127.0.0.0'), 8, 'loopback'],
  [ipv4('169.254.0.0'), 16, 'link-local (cloud metadata)'],
  [ipv4('172.16.0.0'), 12, 'private'],
  [ipv4('192.0.0.0'), 24, 'IETF protocol assignments'],
  [ipv4('192.0.2.0'), 24, 'documentation'],
  [ipv4('192.88.99.0'), 24, '6to4 relay'],
  [ipv4('192.168.0.0'), 16, 'private'],
  [ipv4('198.18.0.0'), 15, 'benchmarking'],
  [ipv4('198.51.100.0'), 24, 'documentation'],
  [ipv4('203.0.113.0'), 24, 'documentation'],
  [ipv4('224.0.0.0'), 4, 'multicast'],
  [ipv4('240.0.0.0'), 4, 'reserved or broadcast'],
  // Azure's wire server answers metadata requests from a public-looking address.
  [ipv4('168.63.129.16'), 32, 'cloud metadata'],
];

/**
 * Parses IPv4 in every spelling the C resolver (inet_aton) and WHATWG URL accept: dotted
 * (127.0.0.1), short (127.1, 10.1.2), a single number (2130706433), hex (0x7f000001, 0x7f.1) and
 * octal parts (0177.0.0.1). Returns the 32-bit value, or null if the text is not such an address.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '' || p.length > 12)) return null;
  const values: number[] = [];
  for (const part of parts) {
    if (/^0x[0-9a-f]*$/i.test(part)) values.push(part.length === 2 ? 0 : parseInt(part.slice(2), 16));
    else if (/^0[0-7]*$/.test(part)) values.push(parseInt(part, 8));
    else if (/^[1-9][0-9]*$/.test(part)) values.push(parseInt(part, 10));
    else return null;
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return null;
  if (last >= 2 ** (8 * (4 - values.length))) return null;
  return values.reduce((sum, v, i) => sum + v * 2 ** (8 * (3 - i)), 0) + last;
}

/** Parses an IPv6 address (brackets and a zone id allowed) into its eight 16-bit groups. */
export function parseIPv6(text: string): number[] | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (isIP(s) !== 6) return null;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = s.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const groups = halves.length > 1 ? [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest] : head;
  if (groups.length !== 8) return null;
  return groups.map((g) => parseInt(g, 16));
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function forbiddenV4(value: number): string | null {
  for (const [base, bits, reason] of FORBIDDEN_V4) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return reason;
  }
  return null;
}

function forbiddenV6(g: number[]): string | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embeddedV4 = (hi: number, lo: number) => hi * 65536 + lo;
  if (g.every((x) => x === 0)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d reaches the IPv4 host itself through a dual-stack socket; never needed for a webhook.
  if (zeroUpTo(5) && g[5] === 0xffff) return 'IPv4-mapped IPv6';
  if (zeroUpTo(6)) return 'IPv4-compatible IPv6';
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g[2] === 1) return 'local-use NAT64';
    if (zeroUpTo(0) && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) {
      const inner = forbiddenV4(embeddedV4(g[6], g[7]));
      if (inner) return `NAT64 of a ${inner} address`;
    }
  }
  if (g[0] === 0x2002) {
    const inner = forbiddenV4(embeddedV4(g[1], g[2]));
    if (inner) return `6to4 of a ${inner} address`;
  }
  if (g[0] === 0x2001 && g[1] === 0) return 'Teredo';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'discard-only';
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique local (private)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return null;
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether a webhook may connect to this address, in any spelling. Anything that is not an IP
 * address is refused: the caller must pass resolved addresses, never a host name.
 */
export function checkAddress(address: string): AddressVerdict {
  const v6 = parseIPv6(address);
  if (v6) {
    const reason = forbiddenV6(v6);
    return reason ? { allowed: false, reason: `${address} is ${reason}` } : { allowed: true };
  }
  const v4 = parseIPv4(address);
  if (v4 !== null) {
    const reason = forbiddenV4(v4);
    return reason ? { allowed: false, reason: `${address} is ${reason}` } : { allowed: true };
  }
  return { allowed: false, reason: `${address} is not an IP address` };
}

/** True when the host part of a URL is an IP literal (in any spelling) rather than a name to resolve. */
export function isIpLiteral(host: string): boolean {
  return parseIPv6(host) !== null || parseIPv4(host) !== null;
}
