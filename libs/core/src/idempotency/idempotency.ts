import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { KeyRing, sealContext } from '../crypto/key-ring';
import type { SealedColumn } from '../crypto/key-rotation';
import type { Condition, Cte, Statement } from '../database/statement';
import { BadRequestError, ValidationError } from '../errors/api-error';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 100;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type IdempotencyClaim =
  | {
      kind: 'owner';
      /** Stores the response to replay. */
      complete(status: number, body: unknown): Promise<void>;
      /** Stores nothing: the key stays free for a retry (a request that created nothing). */
      release(): Promise<void>;
    }
  | { kind: 'replay'; response: StoredResponse };

/** Checks the header's shape; null when there is none. */
export function parseIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(header)) {
    throw new BadRequestError([
      { path: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters` },
    ]);
  }
  return header;
}

/** A stable fingerprint of a request body, whatever the key order. */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface IdempotencyInput {
  scope: string;
  key: string;
  operation: string;
  requestHash: string;
}

const RESPONSE_PURPOSE = 'idempotency_keys.response_body';

/**
 * Idempotency keys and the responses stored against them (docs/idempotency.md). Neither can be
 * worked out from a copy of the database alone (docs/secrets.md): the key is stored as an HMAC under
 * a secret derived from the key ring, and the response is sealed twice, inside with a key derived
 * from the Idempotency-Key itself and outside under the key ring (which `encryption:rotate` renews
 * without needing the Idempotency-Key). A key hashed under a key that has since left the ring is no
 * longer recognised; keep a retired key in the ring for the idempotency window (24 h) after a rotation.
 */
@Injectable()
export class IdempotencyStore {
  constructor(private readonly keyRing: KeyRing) {}

  /**
   * Claims an idempotency key inside the caller's transaction. The key row is inserted in that
   * transaction, so a concurrent request with the same key blocks on the row until the first
   * commits (and then replays) or rolls back (and then proceeds itself): exactly one request does
   * the work, and a failed request (400, 402, 422) leaves no trace (docs/idempotency.md).
   */
  async claim(manager: EntityManager, input: IdempotencyInput): Promise<IdempotencyClaim> {
    const [keyHash, ...earlier] = this.hashesOf(input);
    const inserted: unknown[] = await manager.query(
      `INSERT INTO idempotency_keys (scope, key_hash, operation, request_hash)
       SELECT $1, $2, $3, $4
        WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = $1 AND key_hash = ANY($5::text[]))
       ON CONFLICT (scope, key_hash) DO NOTHING RETURNING key_hash`,
      [input.scope, keyHash, input.operation, input.requestHash, earlier],
    );
    if (inserted.length > 0) {
      return {
        kind: 'owner',
        complete: async (status, body) => {
          await manager.query(
            `UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE scope = $1 AND key_hash = $2`,
            [input.scope, keyHash, status, this.seal(input, keyHash, body)],
          );
        },
        release: async () => {
          await manager.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key_hash = $2`, [input.scope, keyHash]);
        },
      };
    }
    return { kind: 'replay', response: await this.stored(manager, input) };
  }

  /**
   * The claim as part of a larger statement that commits as one, with the response already known:
   * adds a CTE, which inserts the key with its (sealed) response when `onlyIf` holds and
   * returns a row only if this request claimed the key. Like `claim`, a concurrent request with the
   * same key waits on the row; when the statement claimed nothing, read the earlier response with
   * `stored`.
   */
  claimIn(statement: Statement, input: IdempotencyInput, response: StoredResponse, options: { onlyIf?: Condition } = {}): Cte {
    const [keyHash, ...earlier] = this.hashesOf(input);
    const scope = statement.param(input.scope);
    return statement.with(
      'claim',
      `INSERT INTO idempotency_keys (scope, key_hash, operation, request_hash, response_status, response_body)
     SELECT ${scope}, ${statement.param(keyHash)}, ${statement.param(input.operation)},
            ${statement.param(input.requestHash)}, ${statement.param(response.status)}::integer,
            ${statement.param(this.seal(input, keyHash, response.body))}
      WHERE ${statement.condition(options.onlyIf)}
        AND NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = ${scope} AND key_hash = ANY(${statement.param(earlier)}::text[]))
     ON CONFLICT (scope, key_hash) DO NOTHING RETURNING key_hash`,
    );
  }

  /** The response stored against a key already used: 422 when it was used for a different request. */
  async stored(manager: EntityManager, input: IdempotencyInput): Promise<StoredResponse> {
    const stored = await this.find(manager, input);
    if (!stored) throw new Error('no stored response for an idempotency key that was taken');
    return stored;
  }

  /** The same, or null when the key has not been used (or its request failed and stored nothing). */
  async find(manager: EntityManager, input: IdempotencyInput): Promise<StoredResponse | null> {
    const [row] = await manager.query(
      `SELECT key_hash, operation, request_hash, response_status, response_body FROM idempotency_keys
        WHERE scope = $1 AND key_hash = ANY($2::text[]) LIMIT 1`,
      [input.scope, this.hashesOf(input)],
    );
    if (!row) return null;
    if (row.operation !== input.operation || row.request_hash !== input.requestHash) {
      throw new ValidationError(
        'This Idempotency-Key was already used with a different request. Use a new key for a different request.',
      );
    }
    const inner = this.keyRing.decrypt(row.response_body, idempotencyResponseContext(input.scope, row.key_hash));
    return { status: row.response_status, body: JSON.parse(open(input.key, inner)) };
  }

  /** The key's HMAC under each key of the ring, the current key's first (that is the one stored). */
  private hashesOf(input: { scope: string; key: string }): string[] {
    const message = `${input.scope}\0${input.key}`;
    return this.keyRing.derivedSecrets('idempotency-key-hash').map((secret) => createHmac('sha256', secret).update(message).digest('hex'));
  }

  private seal(input: IdempotencyInput, keyHash: string, body: unknown): string {
    return this.keyRing.encrypt(seal(input.key, JSON.stringify(body)), idempotencyResponseContext(input.scope, keyHash));
  }
}

/** The AD of a stored response's outer seal: its row (`encryption:rotate` renews the seal by row). */
export function idempotencyResponseContext(scope: string, keyHash: string): string {
  return sealContext(RESPONSE_PURPOSE, scope, keyHash);
}

/** Stored responses, for `encryption:rotate`: the outer seal is renewed, the inner one left alone. */
export const IDEMPOTENCY_SEALED_COLUMNS: SealedColumn[] = [
  {
    table: 'idempotency_keys',
    column: 'response_body',
    key: ['scope', 'key_hash'],
    context: (row) => idempotencyResponseContext(row.scope, row.key_hash),
  },
];

/** The inner seal: a key derived from the Idempotency-Key, so the key ring alone does not open a response either. */
function cipherKey(idempotencyKey: string): Buffer {
  return createHmac('sha256', 'idempotency-response-v1').update(idempotencyKey).digest();
}

/**
 * Marks an inner seal of the deflated response. A stored response is written with every send that
 * carries a key, and its JSON shrinks to about half: half the bytes this row adds to the send's WAL.
 */
const DEFLATED = 'z';

function seal(idempotencyKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cipherKey(idempotencyKey), iv);
  const data = Buffer.concat([cipher.update(deflateRawSync(plaintext)), cipher.final()]);
  return [DEFLATED, ...[iv, cipher.getAuthTag(), data].map((part) => part.toString('base64'))].join('.');
}

function open(idempotencyKey: string, sealed: string): string {
  const [mark, ...parts] = sealed.split('.');
  if (mark !== DEFLATED) throw new Error('not an idempotent response sealed by seal()');
  const [iv, tag, data] = parts.map((part) => Buffer.from(part, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', cipherKey(idempotencyKey), iv);
  decipher.setAuthTag(tag);
  return inflateRawSync(Buffer.concat([decipher.update(data), decipher.final()])).toString('utf8');
}
