import type { EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { BadRequestError } from '../errors/api-error';
import { locateOffset, readListTotals } from './list-counts';

/** What a client asked of a list: a page, or a cursor (docs/pagination.md). */
export interface ListWindow {
  page: number;
  pageSize: number;
  startingAfter?: string;
  endingBefore?: string;
}

export interface ListPage<T> {
  items: T[];
  total: number;
  /** Whether more items follow in the direction the client walks (older; newer for ending_before). */
  hasMore: boolean;
}

export interface ListSpec<T> {
  entity: EntityTarget<T>;
  accountId: string;
  /** Equality filters, by column name. */
  filters?: Record<string, unknown>;
  /**
   * The kept count (list_counts) that equals the filtered total, or null to count the matching rows
   * (a filter the counts do not keep, such as external_id, is bounded by its matches and indexed).
   */
  countedAs: string | null;
  /** Newest first by `seq`, or by `(created_at, id)` for tables without a seq. */
  order: 'seq' | 'created';
}

/** A cursor and a page number, or both cursors, are two answers to one question: refused. */
export function checkListWindow(window: ListWindow): void {
  if (window.startingAfter !== undefined && window.endingBefore !== undefined) {
    throw new BadRequestError([{ path: 'ending_before', message: 'cannot be combined with starting_after' }]);
  }
  if ((window.startingAfter !== undefined || window.endingBefore !== undefined) && window.page !== 1) {
    throw new BadRequestError([{ path: 'page', message: 'cannot be combined with starting_after or ending_before' }]);
  }
}

/**
 * One page of an account's list, newest first, with its total, read through `manager` (run it in
 * a readSnapshot so page and total agree). A page number deeper than 4,096 rows starts from the
 * block the kept counts place it in, so page 5,000 skips at most 4,096 index entries instead of
 * every newer row; a cursor is a keyset seek (docs/pagination.md, Deep pages).
 */
export async function readListPage<T extends ObjectLiteral>(manager: EntityManager, spec: ListSpec<T>, window: ListWindow): Promise<ListPage<T>> {
  checkListWindow(window);
  const table = manager.connection.getMetadata(spec.entity).tableName;
  const filters = Object.entries(spec.filters ?? {}).filter(([, value]) => value !== undefined);
  const params: Record<string, unknown> = { accountId: spec.accountId };
  const conditions = ['account_id = :accountId'];
  filters.forEach(([column, value], i) => {
    conditions.push(`${column} = :filter${i}`);
    params[`filter${i}`] = value;
  });
  const matching = (alias: string) => conditions.map((c) => `${alias}.${c}`).join(' AND ');
  const query = (): SelectQueryBuilder<T> =>
    manager.getRepository(spec.entity).createQueryBuilder('t').where(matching('t'), params);
  const newestFirst = (q: SelectQueryBuilder<T>, direction: 'DESC' | 'ASC' = 'DESC') =>
    spec.order === 'seq' ? q.orderBy('t.seq', direction) : q.orderBy('t.created_at', direction).addOrderBy('t.id', direction);

  const total =
    spec.countedAs !== null ? (await readListTotals(manager, spec.accountId, [spec.countedAs]))[spec.countedAs] : await query().getCount();

  const cursor = window.startingAfter ?? window.endingBefore;
  if (cursor !== undefined) {
    const field = window.startingAfter !== undefined ? 'starting_after' : 'ending_before';
    const [known]: unknown[] = await manager.query(`SELECT 1 FROM ${table} WHERE id = $1 AND account_id = $2`, [cursor, spec.accountId]);
    if (!known) throw new BadRequestError([{ path: field, message: 'is not the id of an item of this list' }]);
    const position = spec.order === 'seq' ? `(SELECT c.seq FROM ${table} c WHERE c.id = :cursor)` : `(SELECT c.created_at, c.id FROM ${table} c WHERE c.id = :cursor)`;
    const key = spec.order === 'seq' ? 't.seq' : '(t.created_at, t.id)';
    const older = field === 'starting_after';
    const rows = await newestFirst(query().andWhere(`${key} ${older ? '<' : '>'} ${position}`, { cursor }), older ? 'DESC' : 'ASC')
      .limit(window.pageSize + 1)
      .getMany();
    const hasMore = rows.length > window.pageSize;
    const items = rows.slice(0, window.pageSize);
    return { items: older ? items : items.reverse(), total, hasMore };
  }

  const offset = (window.page - 1) * window.pageSize;
  let items: T[];
  if (spec.countedAs !== null && spec.order === 'seq') {
    const start = await locateOffset(manager, spec.accountId, spec.countedAs, offset, total);
    const within = start?.before ? 'AND s.seq >= :from AND s.seq < :before' : '';
    items = start
      ? await query()
          .andWhere(
            `t.seq <= (SELECT s.seq FROM ${table} s WHERE ${matching('s')} ${within} ORDER BY s.seq DESC OFFSET :skip LIMIT 1)`,
            start,
          )
          .orderBy('t.seq', 'DESC')
          .limit(window.pageSize)
          .getMany()
      : [];
  } else {
    items = offset >= total && spec.countedAs !== null ? [] : await newestFirst(query()).offset(offset).limit(window.pageSize).getMany();
  }
  return { items, total, hasMore: offset + items.length < total };
}
