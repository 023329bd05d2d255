import type { EntityManager } from 'typeorm';
import { KeyRing, newKeyRingEntry } from '../crypto/key-ring';
import { Statement } from '../database/statement';
import { IdempotencyStore } from './idempotency';

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

});
