/**
 * One SQL statement assembled from parts contributed by several modules (each a data-modifying
 * CTE), so that work which must commit together can also travel together: one round trip, one
 * implicit transaction, and no lock held while the application thinks. `param` adds a value and
 * returns its placeholder.
 */
export class Statement {
  readonly params: unknown[] = [];
  private readonly ctes: string[] = [];

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds `name AS (sql)`; later parts may read earlier ones by name. */
  with(name: string, sql: string): this {
    this.ctes.push(`${name} AS (${sql})`);
    return this;
  }

  /**
   * Adds CTE `name` inserting `rows` (objects keyed by column name, all of one shape) into `table`
   * when `onlyIf` holds. The rows travel as one JSON parameter however many there are; a column
   * left out takes its default.
   */
  insertRows(name: string, table: string, rows: Record<string, unknown>[], onlyIf = 'true'): this {
    if (rows.length === 0) throw new Error(`no rows to insert into ${table}`);
    const columns = Object.keys(rows[0]).filter((column) => rows[0][column] !== undefined);
    const shape = columns.join(',');
    if (rows.some((row) => Object.keys(row).filter((column) => row[column] !== undefined).join(',') !== shape)) {
      throw new Error(`rows for ${table} differ in their columns`);
    }
    if (!/^[a-z_]+$/.test(table) || columns.some((column) => !/^[a-z_]+$/.test(column))) {
      throw new Error(`not a plain table or column name in ${table} (${columns.join(', ')})`);
    }
    const list = columns.join(', ');
    return this.with(
      name,
      `INSERT INTO ${table} (${list})
       SELECT ${list} FROM jsonb_populate_recordset(NULL::${table}, ${this.param(JSON.stringify(rows))}::jsonb)
        WHERE ${onlyIf}`,
    );
  }

  /** The statement: the CTEs, then `select` (which should read what the caller needs to know). */
  text(select: string): string {
    return this.ctes.length ? `WITH ${this.ctes.join(',\n')}\n${select}` : select;
  }
}
