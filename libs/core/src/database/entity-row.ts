import type { EntityMetadata, ObjectLiteral, ValueTransformer } from 'typeorm';

/**
 * An entity as the row its table stores, keyed by column name, for writes TypeORM does not run
 * itself (a part of a Statement). Each column's transformer is applied as a TypeORM insert would,
 * so the stored value is the same whichever way the entity is written. Columns TypeORM never
 * inserts (generated identities) and undefined values (left to their defaults) are left out.
 */
export function entityRow<T extends ObjectLiteral>(metadata: EntityMetadata, entity: T): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of metadata.columns) {
    if (!column.isInsert) continue;
    const value: unknown = column.getEntityValue(entity, true);
    if (value !== undefined) row[column.databaseName] = value;
  }
  return row;
}

/**
 * The reverse of `entityRow`, for rows read with plain SQL: a function from a row keyed by column
 * name to the entity's properties, each column's transformer applied as TypeORM's own reads apply it.
 * Columns TypeORM does not select (`select: false`) are left out. A timestamp that arrives as text
 * (a row inside `json_agg`, where it is ISO 8601) becomes a Date, as the driver makes one of a column.
 *
 * The mapper is compiled once per entity into one object literal (`row => ({ id: row["id"], ... })`):
 * every entity it makes has the same shape from its first allocation, and each column is a named
 * load V8 caches. A loop storing columns by computed key could not be cached and spent a fifth of a
 * list page's CPU (docs/pagination.md, Cost of a page). The generated text holds only column and
 * property names from the entity metadata, quoted with JSON.stringify.
 */
export function entityFromRow<T extends ObjectLiteral>(metadata: EntityMetadata): (row: Record<string, unknown>) => T {
  const transformers: ValueTransformer[] = [];
  const properties = metadata.columns
    .filter((column) => column.isSelect)
    .map((column) => {
      const transformer = column.transformer as ValueTransformer | ValueTransformer[] | undefined;
      if (Array.isArray(transformer)) throw new Error(`entityFromRow: ${metadata.name}.${column.propertyName} has several transformers`);
      let value = `row[${JSON.stringify(column.databaseName)}]`;
      if (column.type === 'timestamptz' || column.type === 'timestamp with time zone') value = `asDate(${value})`;
      if (transformer) value = `transformers[${transformers.push(transformer) - 1}].from(${value})`;
      return `${JSON.stringify(column.propertyName)}: ${value}`;
    });
  const compile = new Function('transformers', 'asDate', `return (row) => ({ ${properties.join(', ')} });`) as (
    transformers: ValueTransformer[],
    asDate: (value: unknown) => unknown,
  ) => (row: Record<string, unknown>) => T;
  return compile(transformers, asDate);
}

function asDate(value: unknown): unknown {
  return typeof value === 'string' ? new Date(value) : value;
}
