import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 text of `bytes` random bytes; 16 bytes give 128 bits, never sequential. */
export function randomToken(bytes = 16): string {
  let value = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
  const width = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

export type IdPrefix = 'acct' | 'usr' | 'key' | 'rw' | 'card' | 'evt' | 'we' | 'whd' | 'tu' | 'wtx' | 'oac' | 'conn' | 'mail' | 'ogr' | 'aud' | 'ses' | 'inv' | 'pwr';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(16)}`;
}

/** A secret with its prefix and 256 bits of randomness. */
export function newSecret(prefix: 'sk' | 'whsec' | string): string {
  return `${prefix}_${randomToken(32)}`;
}

/**
 * Secrets (API keys, tokens, codes) are stored as SHA-256: they carry 256 random bits, so a fast
 * hash is safe, and lookups by hash need no per-row work.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
