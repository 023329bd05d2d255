import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, MaxLength } from 'class-validator';
import { BadRequestError } from '../errors/api-error';

/** The longest date range a list, a report or a replay takes (docs/pagination.md, Filters). */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A half-open range of creation times: `gte <= created_at < lt`. */
export interface DateRange {
  gte: Date;
  lt: Date;
}

/**
 * `created_gte` / `created_lt` of a list (docs/pagination.md, Filters). Neither given: no range (the
 * whole list, its total kept). One or both: the end defaults to `now`, the start to 366 days before
 * the end; a start at or after the end, or more than 366 days before it, is a `400` naming the field.
 */
export function dateRange(
  given: { gte?: string; lt?: string },
  now: Date,
  paths: { gte: string; lt: string } = { gte: 'created_gte', lt: 'created_lt' },
): DateRange | undefined {
  if (given.gte === undefined && given.lt === undefined) return undefined;
  const lt = given.lt !== undefined ? new Date(given.lt) : now;
  const gte = given.gte !== undefined ? new Date(given.gte) : new Date(lt.getTime() - MAX_RANGE_DAYS * DAY_MS);
  if (Number.isNaN(lt.getTime())) throw new BadRequestError([{ path: paths.lt, message: 'must be an ISO 8601 timestamp' }]);
  if (Number.isNaN(gte.getTime())) throw new BadRequestError([{ path: paths.gte, message: 'must be an ISO 8601 timestamp' }]);
  if (gte.getTime() >= lt.getTime()) throw new BadRequestError([{ path: paths.gte, message: `must be before ${paths.lt}` }]);
  if (lt.getTime() - gte.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw new BadRequestError([{ path: paths.gte, message: `must be at most ${MAX_RANGE_DAYS} days before ${paths.lt}` }]);
  }
  return { gte, lt };
}

/** A `created_gte` / `created_lt` query parameter: an ISO 8601 timestamp, with an example the docs show. */
export function CreatedQuery(bound: 'gte' | 'lt', example: string): PropertyDecorator {
  const description =
    bound === 'gte'
      ? 'Only items created at or after this instant (ISO 8601). Default with `created_lt`: 366 days before it.'
      : 'Only items created before this instant (ISO 8601). Default with `created_gte`: now. At most 366 days after `created_gte`.';
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', format: 'date-time', maxLength: 40, example, description }),
    IsOptional(),
    IsISO8601({ strict: true }, { message: `created_${bound} must be an ISO 8601 timestamp` }),
    MaxLength(40),
  );
}
