import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsString, MaxLength, ValidateIf } from 'class-validator';
import { NoControlCharacters, RequestExamples } from '@app/core';
import type { CatalogRules } from '../catalog-rules';

/** Both fields are required: a PUT replaces the rules as a whole. */
export class CatalogRulesDto {
  /**
   * Only these brands may be offered, or `null` for every brand. An empty list is refused: it would
   * allow nothing (use `null`).
   */
  @ApiProperty({ type: String, isArray: true, nullable: true, minItems: 1, maxItems: 1000, example: ['amazon-us', 'starbucks'] })
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

/** Request examples of PUT /v1/account/catalog-rules (docs/api-contract.md, Examples); brand keys of the sandbox catalog. */
export const CATALOG_RULES_EXAMPLES: RequestExamples<CatalogRulesDto> = {
  only: {
    summary: 'Only Amazon.com, Starbucks and Target',
    value: { allowedBrandKeys: ['amazon-us', 'starbucks', 'target'], blockedBrandKeys: [] },
  },
  block: { summary: 'Every brand but Steam', value: { allowedBrandKeys: null, blockedBrandKeys: ['steam'] } },
};

export class CatalogRulesResponseDto {
  catalogRules: CatalogRulesDto;
}

export function toCatalogRulesDto(rules: CatalogRules): CatalogRulesDto {
  return { allowedBrandKeys: rules.allowedBrandKeys && [...rules.allowedBrandKeys], blockedBrandKeys: [...rules.blockedBrandKeys] };
}
