import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

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
