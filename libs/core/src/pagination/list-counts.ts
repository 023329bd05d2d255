import type { EntityManager } from 'typeorm';

/** Seq-ordered lists are counted per block of 2^13 seq values (the list_counts migration). */
export const COUNT_BLOCK_BITS = 13n;

export interface ListCount {
  total: number;
  /** Count per block, newest block first. */
  blocks: { block: bigint; n: number }[];
}

/**
 * The number of rows of an account's list (`rewards`, `rewards:<status>`, `wallet_transactions`,
 * `topups`) or a kept sum (`issued_cents`), without counting the rows (docs/pagination.md, Totals).
 * Read it in the same snapshot as the page it describes.
 */
export async function readListCount(manager: EntityManager, accountId: string, list: string): Promise<ListCount> {
  const rows: { block: string; n: string }[] = await manager.query(
    `SELECT block, sum(n) AS n FROM (
       SELECT block, n FROM list_counts WHERE account_id = $1 AND list = $2
       UNION ALL
       SELECT block, n FROM list_count_changes WHERE account_id = $1 AND list = $2
     ) AS counted GROUP BY block HAVING sum(n) <> 0 ORDER BY block DESC`,
    [accountId, list],
  );
  const blocks = rows.map((row) => ({ block: BigInt(row.block), n: Number(row.n) }));
  return { total: blocks.reduce((sum, b) => sum + b.n, 0), blocks };
}

/** Several kept counts at once (for the overview): list name → total. Missing lists are 0. */
export async function readListTotals(manager: EntityManager, accountId: string, lists: string[]): Promise<Record<string, number>> {
  const rows: { list: string; n: string }[] = await manager.query(
    `SELECT list, sum(n) AS n FROM (
       SELECT list, n FROM list_counts WHERE account_id = $1 AND list = ANY($2)
       UNION ALL
       SELECT list, n FROM list_count_changes WHERE account_id = $1 AND list = ANY($2)
     ) AS counted GROUP BY list`,
    [accountId, lists],
  );
  const totals: Record<string, number> = Object.fromEntries(lists.map((list) => [list, 0]));
  for (const row of rows) totals[row.list] = Number(row.n);
  return totals;
}

/**
 * Where row number `offset` (0-based, newest first) of a seq-ordered list lies: below seq `before`
 * (exclusive), after skipping `skip` rows. `skip` is less than one block's rows, so a deep page
 * costs a bounded skip instead of an OFFSET over every newer row. Null past the end.
 */
export function locateOffset(count: ListCount, offset: number): { before: string; skip: number } | null {
  let passed = 0;
  for (const { block, n } of count.blocks) {
    if (passed + n > offset) return { before: ((block + 1n) << COUNT_BLOCK_BITS).toString(), skip: offset - passed };
    passed += n;
  }
  return null;
}

/** Folds pending count changes into list_counts, `maxRows` at a time; returns how many it folded. */
export async function compactListCounts(manager: EntityManager, maxRows = 10_000): Promise<number> {
  const [row]: { folded: string }[] = await manager.query(`SELECT compact_list_counts($1) AS folded`, [maxRows]);
  return Number(row.folded);
}
