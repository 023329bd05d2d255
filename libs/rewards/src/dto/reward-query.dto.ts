import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { CreatedQuery, CursorPageQueryDto, NoControlCharacters, PageSizeQuery } from '@app/core';
import { CurrencyCode } from '@app/wallet';
import { REWARD_STATUSES, REWARD_TYPES } from '../entities/reward.entity';

/** The orders `GET /v1/rewards` takes (docs/pagination.md, Sorting): newest first by default. */
export const REWARD_SORTS = ['-createdAt', 'createdAt', '-faceValueCents', 'faceValueCents'] as const;
export type RewardSort = (typeof REWARD_SORTS)[number];

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class ListRewardsQueryDto extends CursorPageQueryDto {
  @PageSizeQuery(25)
  page_size: number = 25;

  @ApiPropertyOptional({ enum: REWARD_STATUSES })
  @IsOptional()
  @IsIn(REWARD_STATUSES)
  status?: string;

  /** Only rewards with this externalId. */
  @ApiPropertyOptional({ example: 'order-1042' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  external_id?: string;

  @CreatedQuery('gte', '2026-11-01T00:00:00Z')
  created_gte?: string;

  @CreatedQuery('lt', '2026-12-01T00:00:00Z')
  created_lt?: string;

  @ApiPropertyOptional({ enum: REWARD_TYPES, example: 'FIXED' })
  @IsOptional()
  @IsIn(REWARD_TYPES)
  type?: string;

  /** Only rewards sent with this campaign label. */
  @ApiPropertyOptional({ example: 'spring-thanks', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  campaign?: string;

  @CurrencyCode({ required: false, description: 'Only rewards in this currency.', example: 'USD' })
  currency?: string;

  /**
   * Only rewards whose recipient's e-mail, first name or last name starts with this text, ignoring
   * case (1 to 100 characters).
   */
  @ApiPropertyOptional({ example: 'ada', minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoControlCharacters()
  recipient?: string;

  /** Only rewards sent by this dashboard user, API key or connected app (`createdBy.id`). */
  @ApiPropertyOptional({ example: 'key_4Cc3bWbJ8N1yDkS0Pq2x7a', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  created_by?: string;

  /**
   * The order: `-createdAt` (newest first, the default), `createdAt`, `-faceValueCents` (largest
   * first) or `faceValueCents`; ties are broken by id. Cursors follow the order.
   */
  @ApiPropertyOptional({ enum: REWARD_SORTS, default: '-createdAt' })
  @IsOptional()
  @IsIn(REWARD_SORTS)
  sort?: RewardSort;
}

export class GetRewardQueryDto {
  /** Full credential values instead of masked ones; needs the `rewards:write` scope. */
  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  include_credentials: boolean = false;
}

export class DryRunQueryDto {
  /** Run every check, funds included, and answer what would happen, without charging, storing or sending anything. */
  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  dry_run: boolean = false;
}
