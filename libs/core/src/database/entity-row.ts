import type { EntityMetadata, ObjectLiteral } from 'typeorm';

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
