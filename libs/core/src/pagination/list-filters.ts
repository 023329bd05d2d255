import type { Type } from '@nestjs/common';
import { ApiError, BadRequestError, FieldIssue } from '../errors/api-error';
import { ApiValidationPipe } from '../validation/api-validation.pipe';
import { dateRange, DateRange } from './date-range';

/** `created_gte` → `createdGte`. */
export const camelCaseOf = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
/** `createdGte` → `created_gte`. */
export const snakeCaseOf = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A list's filters given as a JSON object in camelCase (a report's `filters`, docs/reports.md),
 * checked by the very query DTO and pipe that check the list's own query string: the keys become
 * the query's snake_case names, the DTO validates them as it does for `GET`, and each issue names
 * the field as the caller wrote it (`filters.createdGte`). Only `fields` (the DTO's filters, not its
 * paging parameters) are accepted; anything else is a 400 naming it.
 */
export async function listFiltersAsQuery<T extends object>(given: unknown, dto: Type<T>, fields: readonly string[], path = 'filters'): Promise<T> {
  const filters = given ?? {};
  if (typeof filters !== 'object' || Array.isArray(filters)) throw new BadRequestError([{ path, message: 'must be a JSON object' }]);
  const unknown = Object.keys(filters).filter((key) => !fields.includes(snakeCaseOf(key)) || key !== camelCaseOf(snakeCaseOf(key)));
  if (unknown.length) throw new BadRequestError(unknown.map((key) => ({ path: `${path}.${key}`, message: `${key} is not a filter of this report` })));
  const query = Object.fromEntries(Object.entries(filters).map(([key, value]) => [snakeCaseOf(key), value]));
  try {
    return (await new ApiValidationPipe().transform(query, { type: 'query', metatype: dto })) as T;
  } catch (error) {
    if (error instanceof ApiError && error.issues) {
      throw new BadRequestError(error.issues.map((issue): FieldIssue => ({ path: `${path}.${camelCaseOf(issue.path)}`, message: issue.message })));
    }
    throw error;
  }
}

/**
 * A report's creation range: always one (docs/reports.md), the end defaulting to now and the start
 * to 366 days before the end, with the lists' rules (`dateRange`) and the report's field names.
 */
export function reportDateRange(given: { created_gte?: string; created_lt?: string }, now: Date, path = 'filters'): DateRange {
  return dateRange({ gte: given.created_gte, lt: given.created_lt ?? now.toISOString() }, now, {
    gte: `${path}.createdGte`,
    lt: `${path}.createdLt`,
  })!;
}
