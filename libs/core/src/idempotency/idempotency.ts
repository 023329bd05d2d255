import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
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

/**
 * Claims an idempotency key inside the caller's transaction. The key row is inserted in that
 * transaction, so a concurrent request with the same key blocks on the row until the first
 * commits (and then replays) or rolls back (and then proceeds itself): exactly one request does
 * the work, and a failed request (400, 402, 422) leaves no trace (docs/idempotency.md).
 *
 * The stored response is encrypted with a key derived from the Idempotency-Key itself, so what
 * it holds (a redemption link) cannot be read from the database without the caller's key.
 */
export async function claimIdempotencyKey(
  manager: EntityManager,
  input: IdempotencyInput,
): Promise<IdempotencyClaim> {
  const keyHash = hashOf(input);
  const inserted: unknown[] = await manager.query(
    `INSERT INTO idempotency_keys (scope, key_hash, operation, request_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (scope, key_hash) DO NOTHING RETURNING key_hash`,
    [input.scope, keyHash, input.operation, input.requestHash],
  );
  if (inserted.length > 0) {
    return {
      kind: 'owner',
      complete: async (status, body) => {
        await manager.query(
          `UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE scope = $1 AND key_hash = $2`,
          [input.scope, keyHash, status, seal(input.key, JSON.stringify(body))],
        );
      },
      release: async () => {
        await manager.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key_hash = $2`, [input.scope, keyHash]);
      },
    };
  }
  return { kind: 'replay', response: await storedResponse(manager, input) };
}

export interface IdempotencyInput {
  scope: string;
  key: string;
  operation: string;
  requestHash: string;
}

/**
 * The claim as part of a larger statement that commits as one, with the response already known:
 * adds a CTE, which inserts the key with its (sealed) response when `onlyIf` holds and
 * returns a row only if this request claimed the key. Like `claimIdempotencyKey`, a concurrent
 * request with the same key waits on the row; when the statement claimed nothing, read the
 * earlier response with `storedResponse`.
 */
export function claimIdempotencyKeyIn(
  statement: Statement,
  input: IdempotencyInput,
  response: StoredResponse,
  options: { onlyIf?: Condition } = {},
): Cte {
  return statement.with(
    'claim',
    `INSERT INTO idempotency_keys (scope, key_hash, operation, request_hash, response_status, response_body)
     SELECT ${statement.param(input.scope)}, ${statement.param(hashOf(input))}, ${statement.param(input.operation)},
            ${statement.param(input.requestHash)}, ${statement.param(response.status)}::integer,
            ${statement.param(seal(input.key, JSON.stringify(response.body)))}
      WHERE ${statement.condition(options.onlyIf)}
     ON CONFLICT (scope, key_hash) DO NOTHING RETURNING key_hash`,
  );
}

/** The response stored against a key already used: 422 when it was used for a different request. */
export async function storedResponse(manager: EntityManager, input: IdempotencyInput): Promise<StoredResponse> {
  const stored = await findStoredResponse(manager, input);
  if (!stored) throw new Error('no stored response for an idempotency key that was taken');
  return stored;
}

/** The same, or null when the key has not been used (or its request failed and stored nothing). */
export async function findStoredResponse(manager: EntityManager, input: IdempotencyInput): Promise<StoredResponse | null> {
  const [row] = await manager.query(
    `SELECT operation, request_hash, response_status, response_body FROM idempotency_keys WHERE scope = $1 AND key_hash = $2`,
    [input.scope, hashOf(input)],
  );
  if (!row) return null;
  if (row.operation !== input.operation || row.request_hash !== input.requestHash) {
    throw new ValidationError(
      'This Idempotency-Key was already used with a different request. Use a new key for a different request.',
    );
  }
  return { status: row.response_status, body: JSON.parse(open(input.key, row.response_body)) };
}

function hashOf(input: { scope: string; key: string }): string {
  return createHash('sha256').update(`${input.scope}\0${input.key}`).digest('hex');
}

function cipherKey(idempotencyKey: string): Buffer {
  return createHmac('sha256', 'idempotency-response-v1').update(idempotencyKey).digest();
}

function seal(idempotencyKey: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cipherKey(idempotencyKey), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64')).join('.');
}

function open(idempotencyKey: string, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', cipherKey(idempotencyKey), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
