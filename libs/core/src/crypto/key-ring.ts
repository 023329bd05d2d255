import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * The encryption key ring (docs/secrets.md): `id:base64key` entries, comma-separated, each key 32
 * bytes. The first key encrypts; every key decrypts. Values are sealed with AES-256-GCM (Node's
 * crypto, no cipher of our own) as the text `v1:<keyId>:<base64url(iv ‖ ciphertext ‖ tag)>`.
 *
 * Every value is sealed for a context (the table's purpose and the ids of its row, e.g. the card id
 * and its account), passed to GCM as associated data: a ciphertext copied into another row, or
 * another account, fails to open.
 */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const SEALED = /^v1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]+)$/;

/** A key ring that cannot be used: its text names the problem (the caller names the variable). */
export class KeyRingFormatError extends Error {}

/** A sealed value that does not open: unknown key, tampered, or sealed for another row. */
export class DecryptionError extends Error {
  constructor(reason: string) {
    super(`encrypted value cannot be decrypted: ${reason}`);
  }
}

/** Parses `id:base64key[,id:base64key...]`; throws KeyRingFormatError naming what is wrong. */
export function parseKeyRing(text: string): EncryptionKey[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  if (!entries.length) throw new KeyRingFormatError('must list at least one key as id:base64key');
  const keys: EncryptionKey[] = [];
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!KEY_ID.test(id)) {
      throw new KeyRingFormatError(`entries must be id:base64key with an id of 1-32 letters, digits, _ or - (got an entry "${id || entry.slice(0, 8)}…")`);
    }
    const encoded = entry.slice(colon + 1);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
      throw new KeyRingFormatError(`key "${id}" must be 32 bytes in base64 (got ${key.length} bytes)`);
    }
    if (keys.some((k) => k.id === id)) throw new KeyRingFormatError(`key id "${id}" appears twice`);
    keys.push({ id, key });
  }
  return keys;
}

/** A new key ring entry: `id:base64key` with 32 random bytes. */
export function newKeyRingEntry(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

export class KeyRing {
  private readonly byId: Map<string, Buffer>;

  constructor(readonly keys: readonly EncryptionKey[]) {
    if (!keys.length) throw new KeyRingFormatError('must list at least one key as id:base64key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  static fromText(text: string): KeyRing {
    return new KeyRing(parseKeyRing(text));
  }

  /** The id of the key that encrypts (the first). */
  get currentKeyId(): string {
    return this.keys[0].id;
  }

  /** Seals `plaintext` under the first key for `context` (associated data: what the value is and whose). */
  encrypt(plaintext: string, context: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${id}:${Buffer.concat([iv, data, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** Opens a value sealed by `encrypt` for the same context; DecryptionError otherwise. */
  decrypt(sealed: string, context: string): string {
    const match = SEALED.exec(sealed);
    if (!match) throw new DecryptionError('not a v1 sealed value');
    const key = this.byId.get(match[1]);
    if (!key) throw new DecryptionError(`key "${match[1]}" is not in ENCRYPTION_KEYS`);
    const raw = Buffer.from(match[2], 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('too short');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new DecryptionError(`authentication failed (tampered, or sealed for another row) under key "${match[1]}"`);
    }
  }

  /** The key id a sealed value names, or null when it is not a sealed value. */
  static keyIdOf(value: string): string | null {
    return SEALED.exec(value)?.[1] ?? null;
  }

  /** Whether `value` is sealed under the key that encrypts now (else `encryption:rotate` re-encrypts it). */
  isCurrent(value: string): boolean {
    return KeyRing.keyIdOf(value) === this.currentKeyId;
  }

  /**
   * A secret for `purpose` derived from each key (HMAC-SHA256 of the purpose), the current key's
   * first: for keyed hashes that must be recomputed from a request (idempotency keys), looked up
   * under every key so values hashed before a rotation are still found.
   */
  derivedSecrets(purpose: string): Buffer[] {
    // The ring never changes in a process: derived once per purpose, not on every request that hashes a key.
    let secrets = this.derived.get(purpose);
    if (!secrets) {
      secrets = this.keys.map(({ key }) => createHmac('sha256', key).update(`derive:${purpose}`, 'utf8').digest());
      this.derived.set(purpose, secrets);
    }
    return secrets;
  }

  private readonly derived = new Map<string, Buffer[]>();
}

/** Associated data for a sealed value: its purpose and the ids that own it, unambiguously joined. */
export function sealContext(purpose: string, ...ids: string[]): string {
  return [purpose, ...ids].map((part) => `${part.length}:${part}`).join('|');
}
