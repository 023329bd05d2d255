import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsString, MaxLength, ValidateIf } from 'class-validator';
import { NoControlCharacters } from '@app/core';
import type { CatalogRules } from '../catalog-rules';

/** Both fields are required: a PUT replaces the rules as a whole. */
export class CatalogRulesDto {
  /**
   * Only these brands may be offered, or `null` for every brand. An empty list is refused: it would
   * allow nothing (use `null`).
   */
  @ApiProperty({ type: String, isArray: true, nullable: true, minItems: 1, maxItems: 1000, example: ['amazon', 'starbucks'] })
  @ValidateIf((body: CatalogRulesDto) => body.allowedBrandKeys !== null)
  @IsArray({ message: 'allowedBrandKeys must be an array of brand keys, or null for every brand' })
  @ArrayNotEmpty({ message: 'allowedBrandKeys must not be empty; use null to allow every brand' })
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  @NoControlCharacters({}, { each: true })
  allowedBrandKeys: string[] | null;

  /** These brands are never offered, even when also allowed. */
  @ApiProperty({ type: String, isArray: true, maxItems: 1000, example: [] })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  @NoControlCharacters({}, { each: true })
  blockedBrandKeys: string[];
}

export class CatalogRulesResponseDto {
  catalogRules: CatalogRulesDto;
}

export function toCatalogRulesDto(rules: CatalogRules): CatalogRulesDto {
  return { allowedBrandKeys: rules.allowedBrandKeys && [...rules.allowedBrandKeys], blockedBrandKeys: [...rules.blockedBrandKeys] };
}
