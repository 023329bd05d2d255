import type { EntityManager } from 'typeorm';
import { locateOffset } from './list-counts';

/**
 * A manager that answers the count reads from fixed blocks: coarse (level 1) and fine (level 2)
 * counts, each `[block, n]`, as the list_counts tables would.
 */
function countsOf(coarse: [number, number][], fine: [number, number][]): EntityManager {
  const rows = (blocks: [number, number][]) =>
    [...blocks].sort((a, b) => b[0] - a[0]).map(([block, n]) => ({ block: String(block), n: String(n) }));
  return {
    query: async (_sql: string, params: unknown[]) => {
      // The coarse read has (account, list); the fine read adds the range of fine blocks.
      if (params.length === 2) return rows(coarse);
      const [first, last] = [Number(params[2]), Number(params[3])];
      return rows(fine.filter(([block]) => block >= first && block <= last));
    },
  } as unknown as EntityManager;
}

describe('locateOffset', () => {
  // Coarse block 1 (fine blocks 256..511) holds the 4,000 newest rows, coarse block 0 (fine 0..255) 8,000 older ones.
  // Rows 0..2,999 are in fine block 300, 3,000..3,999 in 256, 4,000..7,999 in 200, 8,000..11,999 in 10.
  const manager = countsOf(
    [
      [1, 4_000],
      [0, 8_000],
    ],
    [
      [300, 3_000],
      [256, 1_000],
      [200, 4_000],
      [10, 4_000],
    ],
  );
  const total = 12_000;
  const fine = (block: number, skip: number) => ({ from: String(block * 4_096), before: String((block + 1) * 4_096), skip });

  it('skips from the top of the list up to 4,096 rows, without reading counts', async () => {
    expect(await locateOffset(countsOf([], []), 'acct', 'rewards', 4_096, 5_000)).toEqual({ from: null, before: null, skip: 4_096 });
  });

  it('finds the fine block of a deep offset, across coarse blocks, and skips only inside it', async () => {
    expect(await locateOffset(manager, 'acct', 'rewards', 4_097, total)).toEqual(fine(200, 97));
    expect(await locateOffset(manager, 'acct', 'rewards', 7_999, total)).toEqual(fine(200, 3_999));
    expect(await locateOffset(manager, 'acct', 'rewards', 8_000, total)).toEqual(fine(10, 0));
    expect(await locateOffset(manager, 'acct', 'rewards', 11_999, total)).toEqual(fine(10, 3_999));
  });

  it('answers null past the end', async () => {
    expect(await locateOffset(manager, 'acct', 'rewards', 12_000, total)).toBeNull();
  });
});
