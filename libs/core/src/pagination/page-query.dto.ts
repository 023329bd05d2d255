import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const MAX_PAGE_SIZE = 100;

/** `page` of a list: 1-based. Each list adds its own `page_size` with `@PageSizeQuery(default)`. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Page number, from 1.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;
}

/**
 * `page`, or a cursor: the id of an item of the list, as Stripe's lists take it
 * (docs/pagination.md). At most one of the cursors, and no `page` beside one.
 */
export class CursorPageQueryDto extends PageQueryDto {
  /** The page of items older than this one (the last id of the page seen), for walking a whole list. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  starting_after?: string;

  /** The page of items newer than this one (the first id of the page seen), for walking back. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  ending_before?: string;
}

/** `page_size` of a list: an integer from 1 to 100, with the list's own default (docs/errors.md, Lists and pages). */
export function PageSizeQuery(defaultSize: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: defaultSize,
      description: `Items per page, 1 to ${MAX_PAGE_SIZE}.`,
    }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(MAX_PAGE_SIZE),
  );
}
