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
 * The columns are worked out once per entity; mapping a row is one pass over them.
 */
export function entityFromRow<T extends ObjectLiteral>(metadata: EntityMetadata): (row: Record<string, unknown>) => T {
  const fields = metadata.columns
    .filter((column) => column.isSelect)
    .map((column) => {
      const transformer = column.transformer as ValueTransformer | ValueTransformer[] | undefined;
      if (Array.isArray(transformer)) throw new Error(`entityFromRow: ${metadata.name}.${column.propertyName} has several transformers`);
      return {
        property: column.propertyName,
        column: column.databaseName,
        isDate: column.type === 'timestamptz' || column.type === 'timestamp with time zone',
        transformer,
      };
    });
  return (row) => {
    const entity: Record<string, unknown> = {};
    for (const field of fields) {
      let value = row[field.column];
      if (field.isDate && typeof value === 'string') value = new Date(value);
      entity[field.property] = field.transformer ? field.transformer.from(value) : value;
    }
    return entity as T;
  };
}
