import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are drawn from the CSPRNG (randomFillSync, what randomBytes uses) a page at a time and
 * handed out in order, each handed-out byte zeroed in the pool: a send takes five tokens, and one
 * call per token was a native job and a new Buffer each (Node's randomUUID pools the same way).
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function takeRandom(target: Uint8Array): void {
  if (target.length > POOL_BYTES) {
    randomFillSync(target);
    return;
  }
  if (poolOffset + target.length > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  target.set(pool.subarray(poolOffset, poolOffset + target.length));
  pool.fill(0, poolOffset, poolOffset + target.length);
  poolOffset += target.length;
}

/**
 * Base62 text of `bytes` random bytes, most significant digit first and zero-padded to the width
 * that any value of that many bytes needs; 16 bytes give 128 bits, never sequential. The bytes are
 * read as one big-endian number and divided by 62 in place, one digit per pass (the same digits as
 * BigInt arithmetic would give, without a BigInt per step).
 */
export function randomToken(bytes = 16): string {
  const value = new Uint8Array(bytes);
  takeRandom(value);
  return base62(value);
}

/** `value` (big-endian; consumed) as base62 digits, padded to the width of its length. Exported for tests. */
export function base62(value: Uint8Array): string {
  const width = Math.ceil((value.length * 8) / Math.log2(62));
  const digits = new Array<string>(width);
  let start = 0;
  for (let i = width - 1; i >= 0; i--) {
    let remainder = 0;
    while (start < value.length && value[start] === 0) start++;
    for (let j = start; j < value.length; j++) {
      const current = remainder * 256 + value[j];
      value[j] = Math.floor(current / 62);
      remainder = current % 62;
    }
    digits[i] = ALPHABET[remainder];
  }
  return digits.join('');
}

export type IdPrefix = 'acct' | 'usr' | 'key' | 'rw' | 'card' | 'evt' | 'we' | 'whd' | 'tu' | 'wtx' | 'oac' | 'conn' | 'mail' | 'ogr' | 'aud' | 'ses' | 'inv' | 'pwr' | 'fxq' | 'fxc' | 'wrp' | 'rpt';

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
