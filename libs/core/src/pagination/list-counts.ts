import type { EntityManager } from 'typeorm';

/** Seq values per coarse (level 1) and fine (level 2) count block: 2^20 and 2^12 (the list_counts migration). */
const COARSE_BITS = 20n;
const FINE_BITS = 12n;
/** An offset up to this is skipped from the top of the list; beyond it, the counts place the page first. */
export const DIRECT_SKIP_LIMIT = 4_096;

/**
 * The sum of a kept count's rows and its not yet folded changes, at level 1 (coarse) or 2 (fine),
 * per block, newest block first. A change row names its fine block only; its coarse block is
 * derived here as the fold derives it (the list_count_changes migration).
 */
function levelSql(level: 1 | 2, blockRange: string): string {
  const changeBlock = level === 1 ? `block >> ${COARSE_BITS - FINE_BITS}` : 'block';
  return `SELECT block, sum(n) AS n FROM (
       SELECT block, n FROM list_counts WHERE account_id = $1 AND list = $2 AND level = ${level} ${blockRange}
       UNION ALL
       SELECT ${changeBlock} AS block, n FROM list_count_changes WHERE account_id = $1 AND list = $2 ${blockRange}
     ) AS counted GROUP BY block HAVING sum(n) <> 0 ORDER BY block DESC`;
}

/**
 * The rows whose sum is each list's total, folded (level 0) and not yet folded (every change row
 * counts in its list's total, whatever its block); `account` and `lists` are SQL.
 */
function totalRows(account: string, lists: string): string {
  return `SELECT list, n FROM list_counts WHERE account_id = ${account} AND list ${lists} AND level = 0
       UNION ALL
       SELECT list, n FROM list_count_changes WHERE account_id = ${account} AND list ${lists}`;
}

/**
 * One kept count's total as a scalar subquery, to read in the statement of the page it describes
 * (`account` and `list` are SQL, e.g. parameters): the same sum as `readListTotals`, 0 when never written.
 */
export function listTotalSql(account: string, list: string): string {
  return `(SELECT COALESCE(sum(n), 0) FROM (${totalRows(account, `= ${list}`)}) AS counted)`;
}

/**
 * Kept counts of an account (docs/pagination.md, Totals): list name (`rewards`, `rewards:<status>`,
 * `wallet_transactions`, `topups`, or the sum `issued_cents`) → total, without counting rows. Lists
 * never written are 0. Read them in the same snapshot as the page they describe.
 */
export async function readListTotals(manager: EntityManager, accountId: string, lists: string[]): Promise<Record<string, number>> {
  const rows: { list: string; n: string }[] = await manager.query(`SELECT list, sum(n) AS n FROM (${totalRows('$1', '= ANY($2)')}) AS counted GROUP BY list`, [
    accountId,
    lists,
  ]);
  const totals: Record<string, number> = Object.fromEntries(lists.map((list) => [list, 0]));
  for (const row of rows) totals[row.list] = Number(row.n);
  return totals;
}

/**
 * A list's total and, for a seq-ordered list, where row number `offset` (0-based, newest first)
 * lies: in the fine block of seq values [`from`, `before`), after skipping `skip` rows of it, so the
 * skip is bounded by 4,096 seq values whichever index the planner walks (docs/pagination.md, Deep
 * pages). For deep offsets only: up to DIRECT_SKIP_LIMIT the page skips from the top of the list
 * without reading counts (list-page.ts). `start` is null past the end.
 * One statement: the total, the coarse block holding the offset (the blocks' running sums, newest
 * first) and the fine block inside it.
 */
export async function locateOffset(
  manager: EntityManager,
  accountId: string,
  list: string,
  offset: number,
): Promise<{ total: number; start: { from: string; before: string; skip: number } | null }> {
  const spread = COARSE_BITS - FINE_BITS;
  const [row]: { total: string; coarse_passed: string | null; fine_block: string | null; fine_passed: string | null }[] = await manager.query(
    `WITH coarse AS (
       SELECT block, n, sum(n) OVER (ORDER BY block DESC) - n AS passed FROM (${levelSql(1, '')}) AS c
     ), at_coarse AS (
       SELECT block, passed FROM coarse WHERE passed + n > $3 ORDER BY block DESC LIMIT 1
     ), fine AS (
       SELECT block, n, sum(n) OVER (ORDER BY block DESC) - n AS passed
         FROM (${levelSql(2, `AND block BETWEEN (SELECT block << ${spread} FROM at_coarse) AND (SELECT ((block + 1) << ${spread}) - 1 FROM at_coarse)`)}) AS f
     ), at_fine AS (
       SELECT block, passed FROM fine WHERE passed + n > $3 - (SELECT passed FROM at_coarse) ORDER BY block DESC LIMIT 1
     )
     SELECT ${listTotalSql('$1', '$2')} AS total, (SELECT passed FROM at_coarse) AS coarse_passed, f.block AS fine_block, f.passed AS fine_passed
       FROM (SELECT 1) AS one LEFT JOIN at_fine f ON true`,
    [accountId, list, offset],
  );
  const total = Number(row.total);
  if (offset >= total || row.fine_block === null) return { total, start: null };
  const block = BigInt(row.fine_block);
  return {
    total,
    start: { from: (block << FINE_BITS).toString(), before: ((block + 1n) << FINE_BITS).toString(), skip: offset - Number(row.coarse_passed) - Number(row.fine_passed) },
  };
}

/** Folds pending count changes into list_counts, `maxRows` at a time; returns how many it folded. */
export async function compactListCounts(manager: EntityManager, maxRows = 10_000): Promise<number> {
  const [row]: { folded: string }[] = await manager.query(`SELECT compact_list_counts($1) AS folded`, [maxRows]);
  return Number(row.folded);
}
