/**
 * A common table expression added to a Statement. Parts that depend on it take this handle, never
 * its name as text: a handle can only come from `Statement.with`, so a reference to a CTE that was
 * never added (or was added to another statement) cannot be written. It renders as its name.
 */
export class Cte {
  /** @internal created by Statement only */
  constructor(
    readonly name: string,
    readonly statement: Statement,
  ) {}

  toString(): string {
    return this.name;
  }
}

/**
 * An SQL condition a part of a statement is done under. Built from handles (`Condition.exists`,
 * `Condition.all`), so what a part waits for is checked by the compiler like any other value.
 */
export class Condition {
  private constructor(
    readonly sql: string,
    /** The CTEs the condition reads. */
    readonly reads: readonly Cte[],
  ) {}

  /** No condition: the part is always done. */
  static readonly always = new Condition('true', []);

  /** True when `cte` produced at least one row (a claim won, a check passed). */
  static exists(cte: Cte): Condition {
    if (!(cte instanceof Cte)) throw new TypeError('a condition reads a CTE through the handle Statement.with returned');
    return new Condition(`EXISTS (SELECT 1 FROM ${cte.name})`, [cte]);
  }

  /** True when every condition is. */
  static all(...conditions: Condition[]): Condition {
    const parts = conditions.filter((c) => c !== Condition.always);
    if (parts.length === 0) return Condition.always;
    if (parts.length === 1) return parts[0];
    return new Condition(parts.map((c) => c.sql).join(' AND '), parts.flatMap((c) => c.reads));
  }

  toString(): string {
    return this.sql;
  }
}


/**
 * One SQL statement assembled from parts contributed by several modules (each a data-modifying
 * CTE), so that work which must commit together can also travel together: one round trip, one
 * implicit transaction, and no lock held while the application thinks. `param` adds a value and
 * returns its placeholder. Each part is named by the statement (its label, made unique), and
 * later parts read earlier ones through the `Cte` handle `with` returned.
 */
export class Statement {
  readonly params: unknown[] = [];
  private readonly ctes: string[] = [];
  private readonly names = new Set<string>();

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /**
   * Adds `name AS (sql)` and returns its handle. `label` (lower-case words) names it in the SQL;
   * a label used twice gets a numbered name, so two parts can never collide.
   */
  with(label: string, sql: string): Cte {
    if (!/^[a-z][a-z_]*$/.test(label)) throw new Error(`not a plain CTE label: ${label}`);
    let name = label;
    for (let n = 2; this.names.has(name); n++) name = `${label}_${n}`;
    this.names.add(name);
    this.ctes.push(`${name} AS (${sql})`);
    return new Cte(name, this);
  }

  /**
   * Adds a CTE inserting `rows` (objects keyed by column name, all of one shape) into `table`
   * when `onlyIf` holds. The rows travel as one JSON parameter however many there are; a column
   * left out takes its default.
   */
  insertRows(label: string, table: string, rows: Record<string, unknown>[], options: { onlyIf?: Condition } = {}): Cte {
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
      label,
      `INSERT INTO ${table} (${list})
       SELECT ${list} FROM jsonb_populate_recordset(NULL::${table}, ${this.param(JSON.stringify(rows))}::jsonb)
        WHERE ${this.condition(options.onlyIf)}`,
    );
  }

  /**
   * The SQL of a condition of this statement (`Condition.always` when none), for parts written by
   * hand. A condition on another statement's CTE is refused.
   */
  condition(onlyIf: Condition = Condition.always): string {
    if (!(onlyIf instanceof Condition)) throw new TypeError('a condition is built from CTE handles (Condition.exists), not written as SQL');
    const foreign = onlyIf.reads.find((cte) => cte.statement !== this);
    if (foreign) throw new Error(`condition on ${foreign.name}, which is not a part of this statement`);
    return onlyIf.sql;
  }

  /** The statement: the CTEs, then `select` (which should read what the caller needs to know). */
  text(select: string): string {
    return this.ctes.length ? `WITH ${this.ctes.join(',\n')}\n${select}` : select;
  }
}
