import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { KeyRing, newKeyRingEntry } from '../crypto/key-ring';
import { Statement } from '../database/statement';
import { idempotencyResponseContext, IdempotencyStore } from './idempotency';

/** A manager holding one idempotency_keys row: `find` reads it, and the claim statement's parameters fill it. */
function oneRow(row: Record<string, unknown>): EntityManager {
  return { query: async () => [row] } as unknown as EntityManager;
}

describe('IdempotencyStore stored responses', () => {
  const ring = KeyRing.fromText(newKeyRingEntry('k1'));
  const store = new IdempotencyStore(ring);
  const input = { scope: 'acct_1', key: 'order-4821', operation: 'rewards.create', requestHash: 'h' };
  const body = { reward: { id: 'rw_1', recipient: { email: 'ada@example.test' }, message: 'Thanks '.repeat(40) }, redemptionUrl: 'https://x/r/tok' };

  it('stores a response deflated inside its seals (smaller than its JSON after both seals) and replays it', async () => {
    const statement = new Statement();
    store.claimIn(statement, input, { status: 201, body });
    const [, keyHash, , , , sealed] = statement.params as string[];
    expect(sealed).not.toContain('ada@example.test');
    expect(sealed.length).toBeLessThan(JSON.stringify(body).length);
    const replayed = await store.find(
      oneRow({ key_hash: keyHash, operation: input.operation, request_hash: 'h', response_status: 201, response_body: sealed }),
      input,
    );
    expect(replayed).toEqual({ status: 201, body });
  });

  it('still opens a response stored before deflating (three parts inside the outer seal, or no outer seal at all)', async () => {
    const key = createHmac('sha256', 'idempotency-response-v1').update(input.key).digest();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
    const inner = [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64')).join('.');
    const row = (responseBody: string) =>
      oneRow({ key_hash: 'kh', operation: input.operation, request_hash: 'h', response_status: 201, response_body: responseBody });
    expect(await store.find(row(ring.encrypt(inner, idempotencyResponseContext(input.scope, 'kh'))), input)).toEqual({ status: 201, body });
    expect(await store.find(row(inner), input)).toEqual({ status: 201, body });
  });
});
