import { randomBytes } from 'node:crypto';
import { base62, newId, randomToken } from './ids';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The BigInt conversion the ids used before: the reference the in-place division must match digit for digit. */
function bigIntBase62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  const width = Math.ceil((bytes.length * 8) / Math.log2(62));
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

describe('ids', () => {
  it('writes bytes in base62 exactly as BigInt arithmetic does, padded to the width of their length', () => {
    const cases = [Buffer.alloc(16), Buffer.alloc(32, 0xff), Buffer.from([0, 0, 0, 1]), Buffer.from([1, 0, 0, 0, 0, 0])];
    for (let i = 0; i < 2000; i++) cases.push(randomBytes([16, 32, 1, 7][i % 4]));
    for (const bytes of cases) expect(base62(new Uint8Array(bytes))).toBe(bigIntBase62(bytes));
  });

  it('keeps the shape of ids and tokens', () => {
    expect(newId('rw')).toMatch(/^rw_[0-9A-Za-z]{22}$/);
    expect(randomToken(32)).toMatch(/^[0-9A-Za-z]{43}$/);
    // larger than the pool: drawn on its own
    expect(randomToken(5000)).toMatch(/^[0-9A-Za-z]+$/);
  });

  it('never hands out the same random bytes twice, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(randomToken(16)); // 16 kB: four refills of the 4 kB pool
    expect(seen.size).toBe(1000);
  });
});
