import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { Reader } from '../database/read-replica';
import { BadRequestError } from '../errors/api-error';
import { DIRECT_SKIP_LIMIT, listTotalSql, locateOffset } from './list-counts';

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
  /** Only rows created in this half-open range (`created_gte` / `created_lt`, docs/pagination.md, Filters). */
  created?: { gte: Date; lt: Date };
  /**
   * The kept count (list_counts) that equals the filtered total, or null to count the matching rows
   * (a filter the counts do not keep, such as external_id, is bounded by its matches and indexed).
   */
  countedAs: string | null;
  /** Newest first by `seq`, or by `(created_at, id)` for tables without a seq. */
  order: 'seq' | 'created';
  /**
   * Conditions beyond equality (a prefix search, docs/pagination.md, Filters) over any alias, with
   * their named parameters (names not starting with `filter`, `cursor` or `created`).
   */
  where?: { sql: (alias: string) => string; params: Record<string, unknown> };
  /**
   * Another order than `order` newest first (docs/pagination.md, Sorting): `column` (then `id`, so
   * ties have one order) or, with `column` null, `order`'s own key; `ascending` turns it round.
   * Cursors follow it; a page number reads with OFFSET (the kept counts place newest-first pages only).
   */
  sort?: { column: string | null; ascending: boolean };
}

/**
 * The rows of a list (`spec`'s account, equality filters and creation range) as a condition over
 * any alias, with its named parameters: what a page reads, and what a report streams
 * (`readListBatches`), from one definition.
 */
export function listConditions(spec: Pick<ListSpec<unknown>, 'accountId' | 'filters' | 'created' | 'where'>): {
  params: Record<string, unknown>;
  matching: (alias: string) => string;
} {
  const filters = Object.entries(spec.filters ?? {}).filter(([, value]) => value !== undefined);
  const params: Record<string, unknown> = { accountId: spec.accountId };
  const conditions = ['account_id = :accountId'];
  filters.forEach(([column, value], i) => {
    conditions.push(`${column} = :filter${i}`);
    params[`filter${i}`] = value;
  });
  if (spec.created) {
    conditions.push('created_at >= :createdGte', 'created_at < :createdLt');
    Object.assign(params, { createdGte: spec.created.gte, createdLt: spec.created.lt });
  }
  const extra = spec.where;
  if (extra) Object.assign(params, extra.params);
  return {
    params,
    matching: (alias: string) => [...conditions.map((c) => `${alias}.${c}`), ...(extra ? [`(${extra.sql(alias)})`] : [])].join(' AND '),
  };
}

/**
 * Every row of a list (a `seq`-ordered table), newest first, `batchSize` at a time: a keyset walk
 * (`seq < the last seen`), so a report of a million rows holds one batch in memory, each batch is
 * one short indexed statement and no transaction stays open between them. The walk starts below
 * the newest seq of its first read, so rows added meanwhile are left out; a row changed meanwhile
 * shows as it was when its batch was read (docs/reports.md, Consistency). The rows are the driver's
 * plain rows of `columns` (SQL over alias `t`), not entities: a report turns them straight into CSV,
 * and hydrating a million entities beside them only made garbage (docs/reports.md, Memory).
 * Each batch is read through `read` (ReadRouting.reader: the replica, or the primary once it fails).
 */
export async function* readListBatches<R extends object>(
  read: Reader,
  spec: Pick<ListSpec<ObjectLiteral>, 'entity' | 'accountId' | 'filters' | 'created'> & { columns: string },
  batchSize: number,
): AsyncGenerator<R[]> {
  const { params, matching } = listConditions(spec);
  let below: string | null = null;
  for (;;) {
    const after = below;
    const rows = await read(async (manager) => {
      const table = manager.connection.getMetadata(spec.entity).tableName;
      const statement = positional(
        manager,
        `SELECT ${spec.columns}, t.seq AS seq_key FROM ${table} t
          WHERE ${matching('t')}${after === null ? '' : ' AND t.seq < :below'}
          ORDER BY t.seq DESC LIMIT :batchSize`,
        { ...params, ...(after === null ? {} : { below: after }), batchSize },
      );
      return (await manager.query(statement.sql, statement.params)) as (R & { seq_key: string })[];
    });
    if (rows.length === 0) return;
    below = rows[rows.length - 1].seq_key;
    yield rows;
    if (rows.length < batchSize) return;
  }
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
 * How a caller reads a page's rows itself, with what else it needs in the same statement (a
 * reward's cards and timeline): `sql` wraps the page's SQL, whose rows (`t.*` and `list_total`,
 * the list's total) it must select from as `p` and keep `p.list_total`, in `order` (over `p`);
 * `map` makes the items of its rows.
 */
export interface PageSelect<R> {
  sql: (page: string, order: string) => string;
  map: (rows: Record<string, unknown>[]) => R[];
}

/** Where one page lies: its rows' condition over alias `t` (named parameters), their order, limit and offset. */
interface PagePlan {
  where: string;
  params: Record<string, unknown>;
  direction: 'DESC' | 'ASC';
  limit: number;
  /** Rows skipped with OFFSET (0 when a seq bound places the page). */
  skip: number;
  /** The rows come oldest first (ending_before) and are answered reversed. */
  reversed: boolean;
}

/** `:name` parameters as `$n` ones, the way TypeORM's query builder turns them (its Postgres driver). */
function positional(manager: EntityManager, sql: string, named: Record<string, unknown>): { sql: string; params: unknown[] } {
  const [text, params] = manager.connection.driver.escapeQueryWithParameters(sql, named, {});
  return { sql: text, params };
}

/**
 * One page of an account's list, newest first, with its total, read through `manager` (run it in
 * a readSnapshot so page and total agree). A page number deeper than 4,096 rows starts from the
 * block the kept counts place it in, so page 5,000 skips at most 4,096 index entries instead of
 * every newer row; a cursor is a keyset seek (docs/pagination.md, Deep pages). The items are the
 * entities, or what `select` makes of the page's rows; with `select`, a page that the counts need
 * not place is read with its total in one statement (docs/pagination.md, Cost of a page).
 */
export async function readListPage<T extends ObjectLiteral>(manager: EntityManager, spec: ListSpec<T>, window: ListWindow): Promise<ListPage<T>>;
export async function readListPage<R>(manager: EntityManager, spec: ListSpec<ObjectLiteral>, window: ListWindow, select: PageSelect<R>): Promise<ListPage<R>>;
export async function readListPage(
  manager: EntityManager,
  spec: ListSpec<ObjectLiteral>,
  window: ListWindow,
  select?: PageSelect<unknown>,
): Promise<ListPage<unknown>> {
  checkListWindow(window);
  const table = manager.connection.getMetadata(spec.entity).tableName;
  const { params, matching } = listConditions(spec);
  const sortColumn = spec.sort?.column ?? null;
  if (sortColumn !== null && !/^[a-z_]+$/.test(sortColumn)) throw new Error(`not a plain column name: ${sortColumn}`);
  // The order's columns, most significant first: one key, or a key and the id breaking its ties.
  const keyColumns = sortColumn !== null ? [sortColumn, 'id'] : spec.order === 'seq' ? ['seq'] : ['created_at', 'id'];
  // The direction the list runs in: newest (or largest) first unless the sort says otherwise.
  const forward: 'DESC' | 'ASC' = spec.sort?.ascending ? 'ASC' : 'DESC';
  const backward: 'DESC' | 'ASC' = forward === 'DESC' ? 'ASC' : 'DESC';
  const orderOf = (alias: string, direction: 'DESC' | 'ASC') => keyColumns.map((column) => `${alias}.${column} ${direction}`).join(', ');
  // The total: the kept count, or the matching rows counted (a filter the counts do not keep).
  const totalSql =
    spec.countedAs !== null ? listTotalSql(':accountId', ':countedAs') : `(SELECT count(*) FROM ${table} n WHERE ${matching('n')})`;
  if (spec.countedAs !== null) params.countedAs = spec.countedAs;
  const readTotal = async (): Promise<number> => {
    const { sql, params: values } = positional(manager, `SELECT ${totalSql} AS n`, params);
    const [row]: { n: string }[] = await manager.query(sql, values);
    return Number(row.n);
  };

  const cursor = window.startingAfter ?? window.endingBefore;
  const offset = (window.page - 1) * window.pageSize;
  const placed = cursor === undefined && spec.countedAs !== null && spec.order === 'seq' && sortColumn === null && forward === 'DESC';
  // The counts place a deep page, and read the total with it; any other page reads it alongside.
  const deep = placed && offset > DIRECT_SKIP_LIMIT;
  const located = deep ? await locateOffset(manager, spec.accountId, spec.countedAs!, offset) : null;
  let total: number | null = located ? located.total : select ? null : await readTotal();
  const plan = await planPage();
  let rows: unknown[];
  if (plan === null) rows = [];
  else if (select) {
    const { sql, params: values } = positional(
      manager,
      select.sql(
        `SELECT t.*${total === null ? `, ${totalSql} AS list_total` : ''} FROM ${table} t WHERE ${plan.where}
          ORDER BY ${orderOf('t', plan.direction)} LIMIT :limit${plan.skip > 0 ? ' OFFSET :skip' : ''}`,
        orderOf('p', plan.direction),
      ),
      { ...plan.params, limit: plan.limit, skip: plan.skip },
    );
    const raw: Record<string, unknown>[] = await manager.query(sql, values);
    if (total === null && raw.length > 0) {
      if (raw[0].list_total === undefined) throw new Error('list page: the select dropped p.list_total');
      total = Number(raw[0].list_total);
    }
    rows = select.map(raw);
  } else rows = await entities(plan);
  // An empty page read alongside its total did not bring it: read it now (same snapshot).
  total ??= await readTotal();

  if (cursor !== undefined) {
    const hasMore = rows.length > window.pageSize;
    const items = rows.slice(0, window.pageSize);
    return { items: plan?.reversed ? items.reverse() : items, total, hasMore };
  }
  return { items: rows, total, hasMore: offset + rows.length < total };

  /** Where the asked page lies; null when it is known to be empty. */
  async function planPage(): Promise<PagePlan | null> {
    if (cursor !== undefined) {
      const field = window.startingAfter !== undefined ? 'starting_after' : 'ending_before';
      const [known]: unknown[] = await manager.query(`SELECT 1 FROM ${table} WHERE id = $1 AND account_id = $2`, [cursor, spec.accountId]);
      if (!known) throw new BadRequestError([{ path: field, message: 'is not the id of an item of this list' }]);
      const columns = (alias: string) => keyColumns.map((column) => `${alias}.${column}`).join(', ');
      const position = `(SELECT ${columns('c')} FROM ${table} c WHERE c.id = :cursor)`;
      const key = keyColumns.length === 1 ? columns('t') : `(${columns('t')})`;
      // starting_after: the items after the cursor in the list's order; ending_before: those before it.
      const older = field === 'starting_after';
      const after = forward === 'DESC' ? '<' : '>';
      return {
        where: `${matching('t')} AND ${key} ${older ? after : after === '<' ? '>' : '<'} ${position}`,
        params: { ...params, cursor },
        direction: older ? forward : backward,
        limit: window.pageSize + 1,
        skip: 0,
        reversed: !older,
      };
    }
    if (placed) {
      // Up to 4,096 rows deep the page skips from the top of the list (past the end: no row).
      const start = located ? located.start : { from: null, before: null, skip: offset };
      if (!start) return null;
      const within = start.before ? 'AND s.seq >= :from AND s.seq < :before' : '';
      return {
        where: `${matching('t')} AND t.seq <= (SELECT s.seq FROM ${table} s WHERE ${matching('s')} ${within} ORDER BY s.seq DESC OFFSET :offset LIMIT 1)`,
        params: { ...params, from: start.from, before: start.before, offset: start.skip },
        direction: 'DESC',
        limit: window.pageSize,
        skip: 0,
        reversed: false,
      };
    }
    if (total !== null && offset >= total && spec.countedAs !== null) return null;
    return { where: matching('t'), params, direction: forward, limit: window.pageSize, skip: offset, reversed: false };
  }

  function entities(plan: PagePlan): Promise<ObjectLiteral[]> {
    const query = manager.getRepository(spec.entity).createQueryBuilder('t').where(plan.where, plan.params);
    keyColumns.forEach((column, i) => (i === 0 ? query.orderBy(`t.${column}`, plan.direction) : query.addOrderBy(`t.${column}`, plan.direction)));
    return (plan.skip > 0 ? query.offset(plan.skip) : query).limit(plan.limit).getMany();
  }
}
