'use strict';
// The ceiling replay renews every per-request value of the captured creation, and refuses a value
// in a format it does not know (an id format changed in the service) instead of replaying it stale.
const { describe, expect, it } = require('@jest/globals');
const { compileReplay, UnknownValueFormat } = require('./replay-values');

const ACCOUNT = 'acct_0K1WMSzMfH7JUnDiLRhHAE';
const REWARD = 'rw_0UOVU1KdGZhEl8Yl6LHS9w';
const EVENT = 'evt_4MmegpgV9OpqJgsVILyVKv';
const KEY_HASH = '4aa44046fd5eded6ca483fba39ab780aa5cf450ec88ba6f48ad7728411acea69';
const AT = '2026-11-22T17:11:44.275Z';
const SEALED = 'TBlM6rXuzFv9RpZh.hdE8OWRDbNPAfLFI2CUvBw==.FpaBVVGz7TyduVJ+rqQWZrfjYv2TApAWUsNbCD4sZP9ciC01HLlXl7b4MZJCsjDlvO4Sy==';

/** A captured creation shaped like the service's one-statement send, with `reward` as the reward id. */
function plan(reward = REWARD) {
  const rows = JSON.stringify([{ id: reward, account_id: ACCOUNT, status: 'SENT', created_at: AT }]);
  return {
    accountId: ACCOUNT,
    statements: [
      {
        text: 'INSERT …',
        values: [1, ACCOUNT, KEY_HASH, 'rewards.create', SEALED, rows, [EVENT], [ACCOUNT], `Reward ${reward}`, 5000, { $date: AT }],
        varying: [false, false, true, false, true, true, [true], [false], true, false, true],
        jsonAtoms: [reward, AT],
      },
    ],
  };
}

describe('ceiling replay values', () => {
  it('renews ids, hashes, times and the sealed response in their formats, the same everywhere, and swaps the account', () => {
    const valuesFor = compileReplay(plan());
    const other = 'acct_1111111111111111111111';
    const [[one, account, keyHash, operation, sealed, rows, events, accounts, description, cents, at]] = valuesFor(other);
    const [row] = JSON.parse(rows);

    expect(one).toBe(1);
    expect(account).toBe(other);
    expect(operation).toBe('rewards.create');
    expect(cents).toBe(5000);
    expect(keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(keyHash).not.toBe(KEY_HASH);
    expect(sealed.split('.').map((p) => p.length)).toEqual(SEALED.split('.').map((p) => p.length));
    expect(sealed).not.toBe(SEALED);
    expect(row.id).toMatch(/^rw_[0-9A-Za-z]{22}$/);
    expect(row.id).not.toBe(REWARD);
    expect(row.account_id).toBe(other);
    expect(row.created_at).not.toBe(AT);
    expect(description).toBe(`Reward ${row.id}`);
    expect(events[0]).toMatch(/^evt_[0-9A-Za-z]{22}$/);
    expect(events[0]).not.toBe(EVENT);
    expect(accounts).toEqual([other]);
    expect(at).toBeInstanceOf(Date);

    const [[, , nextKeyHash, , , nextRows]] = valuesFor(other);
    expect(nextKeyHash).not.toBe(keyHash);
    expect(JSON.parse(nextRows)[0].id).not.toBe(row.id);
  });

  it('renews a value sealed under the key ring in its format, keeping the key id', () => {
    const sealedV1 = 'v1:dev20261122:q3J8_x-Zk2m4N0pLr7sT1uVwXyZaBcDeFgHiJkLmNoPqRs';
    const captured = plan();
    captured.statements[0].values[4] = sealedV1;
    const [[, , , , renewed]] = compileReplay(captured)('acct_1111111111111111111111');
    expect(renewed).toMatch(/^v1:dev20261122:[A-Za-z0-9_-]+$/);
    expect(renewed).toHaveLength(sealedV1.length);
    expect(renewed).not.toBe(sealedV1);
  });

  it('stops on an id in a format it does not know (a 26-character ULID body instead of 22 base62 characters)', () => {
    expect(() => compileReplay(plan('rw_01JDQ3V5ZKXG8M2N4P6R7S9T0W'))).toThrow(UnknownValueFormat);
    expect(() => compileReplay(plan('rw_01JDQ3V5ZKXG8M2N4P6R7S9T0W'))).toThrow(/rw_01JDQ3V5ZKXG8M2N4P6R7S9T0W.*Has an id format changed\?/);
  });

  it('stops on a varying text that contains no value it renews', () => {
    const p = plan();
    p.statements[0].values[8] = 'Reward sent at half past five';
    expect(() => compileReplay(p)).toThrow(/parameter \$9 of statement 1/);
  });

  it('stops on a varying number, which it has no way to renew', () => {
    const p = plan();
    p.statements[0].varying[9] = true;
    expect(() => compileReplay(p)).toThrow(UnknownValueFormat);
  });
});
