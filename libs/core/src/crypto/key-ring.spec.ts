import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/app-config';
import { developmentKeyRing } from './development-keys';
import { DecryptionError, KeyRing, newKeyRingEntry, sealContext } from './key-ring';

const entry = (id: string) => newKeyRingEntry(id);
const card = (cardId: string, accountId: string) => sealContext('reward_cards.credentials', cardId, accountId);

describe('KeyRing', () => {
  const [oldEntry, newEntry] = [entry('old'), entry('new')];
  const oldRing = KeyRing.fromText(oldEntry);
  const rotated = KeyRing.fromText(`${newEntry},${oldEntry}`);

  it('seals with the first key, names it in the value, and opens under any key of the ring', () => {
    const sealed = oldRing.encrypt('CLAIM-1234-5678', card('card_a', 'acct_a'));
    expect(sealed).toMatch(/^v1:old:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('CLAIM');
    expect(rotated.decrypt(sealed, card('card_a', 'acct_a'))).toBe('CLAIM-1234-5678');
    expect(rotated.encrypt('x', 'c')).toMatch(/^v1:new:/);
    expect(rotated.isCurrent(sealed)).toBe(false);
  });

  it('refuses a value sealed under a key id the ring does not hold', () => {
    const sealed = rotated.encrypt('secret', 'ctx');
    expect(() => oldRing.decrypt(sealed, 'ctx')).toThrow(DecryptionError);
    expect(() => oldRing.decrypt(sealed, 'ctx')).toThrow(/key "new" is not in ENCRYPTION_KEYS/);
  });

  it('refuses a value whose key id was swapped for another key of the ring', () => {
    const sealed = rotated.encrypt('secret', 'ctx');
    expect(() => rotated.decrypt(sealed.replace('v1:new:', 'v1:old:'), 'ctx')).toThrow(DecryptionError);
  });

  it('refuses a tampered value: any changed byte of iv, ciphertext or tag', () => {
    const sealed = oldRing.encrypt('CLAIM-1234-5678', 'ctx');
    const raw = Buffer.from(sealed.slice('v1:old:'.length), 'base64url');
    for (const at of [0, 12, raw.length - 1]) {
      const bad = Buffer.from(raw);
      bad[at] ^= 1;
      expect(() => oldRing.decrypt(`v1:old:${bad.toString('base64url')}`, 'ctx')).toThrow(DecryptionError);
    }
    expect(() => oldRing.decrypt(`v1:old:${raw.subarray(0, 20).toString('base64url')}`, 'ctx')).toThrow(DecryptionError);
    expect(() => oldRing.decrypt('CLAIM-1234-5678', 'ctx')).toThrow(DecryptionError);
  });

  it('refuses a value moved to another row or another account (associated data)', () => {
    const sealed = oldRing.encrypt('CLAIM-1234-5678', card('card_a', 'acct_a'));
    expect(() => oldRing.decrypt(sealed, card('card_b', 'acct_a'))).toThrow(DecryptionError);
    expect(() => oldRing.decrypt(sealed, card('card_a', 'acct_b'))).toThrow(DecryptionError);
    expect(() => oldRing.decrypt(sealed, sealContext('webhook_endpoints.secret', 'card_a', 'acct_a'))).toThrow(DecryptionError);
  });

  it('joins context parts unambiguously', () => {
    expect(sealContext('p', 'a|1:b')).not.toBe(sealContext('p', 'a', 'b'));
  });
});

describe('ENCRYPTION_KEYS', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

  it('is required in production: one line naming it', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production' })).toThrow(
      /^Invalid configuration: ENCRYPTION_KEYS is required when NODE_ENV=production/,
    );
    expect(loadConfig({ ...base, NODE_ENV: 'production', ENCRYPTION_KEYS: entry('k1') }).encryptionKeys).toMatch(/^k1:/);
    expect(loadConfig(base).encryptionKeys).toBeNull();
  });

  it('refuses keys that are not 32 bytes, bad ids and repeated ids, without printing key material', () => {
    const short = `k1:${Buffer.alloc(16, 7).toString('base64')}`;
    expect(() => loadConfig({ ...base, ENCRYPTION_KEYS: short })).toThrow(/^Invalid configuration: ENCRYPTION_KEYS key "k1" must be 32 bytes/);
    expect(() => loadConfig({ ...base, ENCRYPTION_KEYS: `bad id:${Buffer.alloc(32).toString('base64')}` })).toThrow(/ENCRYPTION_KEYS entries must be id:base64key/);
    const same = entry('k1');
    expect(() => loadConfig({ ...base, ENCRYPTION_KEYS: `${same},${same}` })).toThrow(/key id "k1" appears twice/);
    try {
      loadConfig({ ...base, ENCRYPTION_KEYS: short });
    } catch (error) {
      expect((error as Error).message).not.toContain(short.slice(3));
    }
  });
});

describe('the development key file', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'dev-keys-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is created once under var/ with mode 0600, reported once, and read back by every later start', () => {
    const created: string[] = [];
    const first = developmentKeyRing(root, (path) => created.push(path));
    const path = join(root, 'var', 'encryption-keys');
    expect(created).toEqual([path]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(first);
    expect(KeyRing.fromText(first).keys[0].key).toHaveLength(32);

    const again = developmentKeyRing(root, (p) => created.push(p));
    expect(again).toBe(first);
    expect(created).toHaveLength(1);
  });
});
