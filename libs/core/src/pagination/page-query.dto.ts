import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** `page` of a list: 1-based. Each list adds its own `page_size` with its own default. */
export class PageQueryDto {
  /** Page number, from 1. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;
}

export const MAX_PAGE_SIZE = 100;
