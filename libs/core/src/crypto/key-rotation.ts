import type { DataSource } from 'typeorm';
import { KeyRing } from './key-ring';

/**
 * A column of sealed values (docs/secrets.md) and how to rebuild each value's associated data from
 * its row. Each domain describes its own; `encryption:rotate` takes them all.
 */
export interface SealedColumn {
  table: string;
  column: string;
  /** The primary key's columns: batches walk the table in this order. */
  key: string[];
  /** Further columns `context` reads (besides the key). */
  contextColumns?: string[];
  context(row: Record<string, string>): string;
}

export interface RotationOptions {
  /** Rows per transaction: each batch locks its rows (SKIP LOCKED) only while it re-seals them. */
  batchSize?: number;
  /** How long to keep waiting for rows a writer holds before giving up (then: run again). */
  lockedRowsPatienceMs?: number;
}

/**
 * Re-seals every value of `column` that is not under the key ring's first key, in short batches:
 * each transaction takes up to `batchSize` rows with FOR UPDATE SKIP LOCKED (a writer's row is
 * passed over, never waited for), re-seals them and commits. It can be stopped at any point and run
 * again: what is done stays done, and only values not yet under the first key are looked at.
 * Returns how many values it re-sealed.
 */
export async function rotateSealedColumn(
  dataSource: DataSource,
  keyRing: KeyRing,
  column: SealedColumn,
  options: RotationOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const q = (name: string) => `"${name}"`;
  const keys = column.key.map(q).join(', ');
  const selected = [...new Set([...column.key, ...(column.contextColumns ?? []), column.column])].map(q).join(', ');
  const current = `v1:${keyRing.currentKeyId.replace(/_/g, '\\_')}:%`; // `_` is a LIKE wildcard
  const stale = `${q(column.column)} IS NOT NULL AND ${q(column.column)} NOT LIKE $1`;
  const after = `(${keys}) > (${column.key.map((_, i) => `$${i + 3}`).join(', ')})`;
  let total = 0;
  let cursor: string[] | null = null;
  let waitedMs = 0;
  for (;;) {
    const rows: Record<string, string>[] = await dataSource.transaction(async (manager) => {
      const found: Record<string, string>[] = await manager.query(
        `SELECT ${selected} FROM ${q(column.table)}
          WHERE ${stale} ${cursor ? `AND ${after}` : ''}
          ORDER BY ${keys} LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [current, batchSize, ...(cursor ?? [])],
      );
      if (!found.length) return found;
      const resealed = found.map((row) => reseal(keyRing, column, row));
      const arrays = [...column.key.map((k) => found.map((row) => row[k])), found.map((row) => row[column.column]), resealed];
      const names = [...column.key.map((_, i) => `k${i}`), 'old', 'new'];
      // Compare-and-set: a value changed since it was read is left for the next run to look at.
      const [, updated] = (await manager.query(
        `UPDATE ${q(column.table)} t SET ${q(column.column)} = v.new
           FROM unnest(${arrays.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS v(${names.join(', ')})
          WHERE ${column.key.map((k, i) => `t.${q(k)} = v.k${i}`).join(' AND ')} AND t.${q(column.column)} = v.old`,
        arrays,
      )) as [unknown, number];
      total += updated;
      return found;
    });
    if (rows.length === batchSize) {
      const last = rows[rows.length - 1];
      cursor = column.key.map((k) => last[k]);
      continue;
    }
    // One walk is done; rows a writer held were skipped. Look again from the start until none is left.
    const [{ left }] = await dataSource.query(`SELECT count(*)::int AS left FROM ${q(column.table)} WHERE ${stale}`, [current]);
    if (left === 0) return total;
    const patience = options.lockedRowsPatienceMs ?? 30_000;
    if (waitedMs >= patience) {
      throw new Error(`${left} values of ${column.table}.${column.column} stayed locked for ${patience} ms; run encryption:rotate again`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    waitedMs += 100;
    cursor = null;
  }
}

function reseal(keyRing: KeyRing, column: SealedColumn, row: Record<string, string>): string {
  const stored = row[column.column];
  const context = column.context(row);
  // Every value is sealed when written: one that is not was put there by hand, and is left to be looked at.
  if (!KeyRing.keyIdOf(stored)) throw new Error(`${column.table}.${column.column} holds a value that is not sealed`);
  return keyRing.encrypt(keyRing.decrypt(stored, context), context);
}
