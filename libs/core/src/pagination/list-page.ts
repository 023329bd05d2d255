import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
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
 * The SQL of one page, for a caller that reads its rows itself (e.g. with their details in the same
 * statement): `sql` selects the page's rows (`t.*`) with positional `params`; `order` is the order
 * they come in over alias `p` (`p.seq DESC`), to repeat when the page is wrapped as `(sql) AS p`.
 */
export interface PageQuery {
  sql: string;
  params: unknown[];
  order: string;
}

/** Reads the rows of a page given as SQL, in its order. */
export type PageLoader<R> = (page: PageQuery) => Promise<R[]>;

/** Where one page lies: its rows' condition over alias `t` (named parameters), their order, limit and offset. */
interface PagePlan {
  where: string;
  params: Record<string, unknown>;
  direction: 'DESC' | 'ASC';
  limit: number;
  offset: number;
  /** The rows come oldest first (ending_before) and are answered reversed. */
  reversed: boolean;
}

/** `:name` parameters (as TypeORM takes them) as `$n` ones; `::` casts are left alone. */
function positional(sql: string, named: Record<string, unknown>): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const index = new Map<string, number>();
  const text = sql.replace(/(?<!:):([A-Za-z_]\w*)/g, (_, name: string) => {
    if (!(name in named)) throw new Error(`list page: no value for :${name}`);
    let n = index.get(name);
    if (n === undefined) {
      n = params.push(named[name]);
      index.set(name, n);
    }
    return `$${n}`;
  });
  return { sql: text, params };
}

/**
 * One page of an account's list, newest first, with its total, read through `manager` (run it in
 * a readSnapshot so page and total agree). A page number deeper than 4,096 rows starts from the
 * block the kept counts place it in, so page 5,000 skips at most 4,096 index entries instead of
 * every newer row; a cursor is a keyset seek (docs/pagination.md, Deep pages). The items are the
 * entities, or whatever `load` reads from the page's SQL (one statement for a page and its details).
 */
export async function readListPage<T extends ObjectLiteral>(manager: EntityManager, spec: ListSpec<T>, window: ListWindow): Promise<ListPage<T>>;
export async function readListPage<R>(manager: EntityManager, spec: ListSpec<ObjectLiteral>, window: ListWindow, load: PageLoader<R>): Promise<ListPage<R>>;
export async function readListPage(
  manager: EntityManager,
  spec: ListSpec<ObjectLiteral>,
  window: ListWindow,
  load?: PageLoader<unknown>,
): Promise<ListPage<unknown>> {
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
  const orderOf = (alias: string, direction: 'DESC' | 'ASC') =>
    spec.order === 'seq' ? `${alias}.seq ${direction}` : `${alias}.created_at ${direction}, ${alias}.id ${direction}`;

  const counting = positional(`SELECT count(*) AS n FROM ${table} t WHERE ${matching('t')}`, params);
  const total =
    spec.countedAs !== null
      ? (await readListTotals(manager, spec.accountId, [spec.countedAs]))[spec.countedAs]
      : Number((await manager.query(counting.sql, counting.params))[0].n);

  const plan = await planPage();
  const rows = plan === null ? [] : load ? await load(pageQuery(plan)) : await entities(plan);
  if (window.startingAfter !== undefined || window.endingBefore !== undefined) {
    const hasMore = rows.length > window.pageSize;
    const items = rows.slice(0, window.pageSize);
    return { items: plan?.reversed ? items.reverse() : items, total, hasMore };
  }
  return { items: rows, total, hasMore: (window.page - 1) * window.pageSize + rows.length < total };

  /** Where the asked page lies; null when it is known to be empty. */
  async function planPage(): Promise<PagePlan | null> {
    const cursor = window.startingAfter ?? window.endingBefore;
    if (cursor !== undefined) {
      const field = window.startingAfter !== undefined ? 'starting_after' : 'ending_before';
      const [known]: unknown[] = await manager.query(`SELECT 1 FROM ${table} WHERE id = $1 AND account_id = $2`, [cursor, spec.accountId]);
      if (!known) throw new BadRequestError([{ path: field, message: 'is not the id of an item of this list' }]);
      const position = spec.order === 'seq' ? `(SELECT c.seq FROM ${table} c WHERE c.id = :cursor)` : `(SELECT c.created_at, c.id FROM ${table} c WHERE c.id = :cursor)`;
      const key = spec.order === 'seq' ? 't.seq' : '(t.created_at, t.id)';
      const older = field === 'starting_after';
      return {
        where: `${matching('t')} AND ${key} ${older ? '<' : '>'} ${position}`,
        params: { ...params, cursor },
        direction: older ? 'DESC' : 'ASC',
        limit: window.pageSize + 1,
        offset: 0,
        reversed: !older,
      };
    }
    const offset = (window.page - 1) * window.pageSize;
    if (spec.countedAs !== null && spec.order === 'seq') {
      const start = await locateOffset(manager, spec.accountId, spec.countedAs, offset, total);
      if (!start) return null;
      const within = start.before ? 'AND s.seq >= :from AND s.seq < :before' : '';
      return {
        where: `${matching('t')} AND t.seq <= (SELECT s.seq FROM ${table} s WHERE ${matching('s')} ${within} ORDER BY s.seq DESC OFFSET :skip LIMIT 1)`,
        params: { ...params, ...start },
        direction: 'DESC',
        limit: window.pageSize,
        // the offset is in the seq bound; hasMore counts from the page's own offset
        offset,
        reversed: false,
      };
    }
    if (offset >= total && spec.countedAs !== null) return null;
    return { where: matching('t'), params, direction: 'DESC', limit: window.pageSize, offset, reversed: false };
  }

  /** The rows are skipped by the seq bound when the kept counts placed the page, by OFFSET otherwise. */
  function skipped(plan: PagePlan): number {
    return spec.countedAs !== null && spec.order === 'seq' ? 0 : plan.offset;
  }

  function entities(plan: PagePlan): Promise<ObjectLiteral[]> {
    const query = manager.getRepository(spec.entity).createQueryBuilder('t').where(plan.where, plan.params);
    if (spec.order === 'seq') query.orderBy('t.seq', plan.direction);
    else query.orderBy('t.created_at', plan.direction).addOrderBy('t.id', plan.direction);
    const skip = skipped(plan);
    return (skip > 0 ? query.offset(skip) : query).limit(plan.limit).getMany();
  }

  function pageQuery(plan: PagePlan): PageQuery {
    const skip = skipped(plan);
    const { sql, params: values } = positional(
      `SELECT t.* FROM ${table} t WHERE ${plan.where} ORDER BY ${orderOf('t', plan.direction)} LIMIT :limit${skip > 0 ? ' OFFSET :offset' : ''}`,
      { ...plan.params, limit: plan.limit, offset: skip },
    );
    return { sql, params: values, order: orderOf('p', plan.direction) };
  }
}
