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
 * The function is compiled once per entity into one object literal (a list page maps hundreds of
 * rows, and a literal of fixed shape costs a fraction of setting properties one by one).
 */
export function entityFromRow<T extends ObjectLiteral>(metadata: EntityMetadata): (row: Record<string, unknown>) => T {
  const transformers: ValueTransformer[] = [];
  const fields = metadata.columns
    .filter((column) => column.isSelect)
    .map((column) => {
      let value = `row[${JSON.stringify(column.databaseName)}]`;
      if (column.type === 'timestamptz' || column.type === 'timestamp with time zone') value = `date(${value})`;
      const transformer = column.transformer;
      if (transformer) {
        if (Array.isArray(transformer)) throw new Error(`entityFromRow: ${metadata.name}.${column.propertyName} has several transformers`);
        value = `transformers[${transformers.push(transformer) - 1}].from(${value})`;
      }
      return `${JSON.stringify(column.propertyName)}: ${value}`;
    });
  const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : value);
  // The source is built from the entity's own metadata (column and property names), never from outside input.
  const build = new Function('transformers', 'date', `return (row) => ({ ${fields.join(', ')} });`) as (
    transformers: ValueTransformer[],
    date: (value: unknown) => unknown,
  ) => (row: Record<string, unknown>) => T;
  return build(transformers, date);
}
