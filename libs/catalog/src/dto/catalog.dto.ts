import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { CATALOG_VALUE_TYPES, CatalogItemEntity } from '../entities/catalog-item.entity';
import type { CatalogBrandListing } from '../catalog.service';

export class CatalogQueryDto {
  /** Only brands whose name contains this text (case-insensitive). */
  @ApiPropertyOptional({ maxLength: 100, example: 'amazon' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  search?: string;

  /** Only items in this currency (ISO 4217, any case). */
  @ApiPropertyOptional({ minLength: 3, maxLength: 3, example: 'USD' })
  @IsOptional()
  @IsString()
  @Length(3, 3, { message: 'currency must be exactly 3 characters (an ISO 4217 code)' })
  currency?: string;

  /** Only items redeemable in this country (ISO 3166-1 alpha-2, any case). */
  @ApiPropertyOptional({ minLength: 2, maxLength: 2, example: 'US' })
  @IsOptional()
  @IsString()
  @Length(2, 2, { message: 'country must be exactly 2 characters (an ISO 3166-1 alpha-2 code)' })
  country?: string;
}

/**
 * An orderable item. Values are in major units of `currencyCode` (25 means 25.00); a reward's
 * `valueCents` must be `faceValue * 100`, or lie within `minValue * 100` to `maxValue * 100`.
 * The values that do not apply to the item's `valueType` are `null`, never omitted.
 */
export class CatalogItemDto {
  /** Catalog item identifier; send it as `utid` for a FIXED reward. */
  @ApiProperty({ example: 'U356303' })
  utid: string;

  @ApiProperty({ example: 'Amazon.com $25 Gift Card' })
  rewardName: string;

  /** ISO 4217. */
  @ApiProperty({ example: 'USD' })
  currencyCode: string;

  @ApiProperty({ enum: CATALOG_VALUE_TYPES })
  valueType: string;

  /**
   * FIXED_VALUE: the card's value in MAJOR units of `currencyCode` (25 means 25.00), unlike every
   * `*Cents` field of the API. Send it as `valueCents` times 100: 25 here is `valueCents: 2500`.
   * `null` for VARIABLE_VALUE.
   */
  @ApiProperty({ type: Number, nullable: true, minimum: 0, example: 25 })
  faceValue: number | null;

  /**
   * VARIABLE_VALUE: the smallest value in MAJOR units (5 means 5.00, so at least `valueCents: 500`),
   * unlike the `*Cents` fields. `null` for FIXED_VALUE.
   */
  @ApiProperty({ type: Number, nullable: true, minimum: 0, example: 5 })
  minValue: number | null;

  /**
   * VARIABLE_VALUE: the largest value in MAJOR units (500 means 500.00, so at most `valueCents: 50000`),
   * unlike the `*Cents` fields. `null` for FIXED_VALUE.
   */
  @ApiProperty({ type: Number, nullable: true, minimum: 0, example: 500 })
  maxValue: number | null;

  /** Where the card can be redeemed, ISO 3166-1 alpha-2. */
  @ApiProperty({ type: [String], example: ['US'] })
  countries: string[];
}

export class CatalogBrandDto {
  @ApiProperty({ example: 'amazon-us' })
  brandKey: string;

  name: string;

  description: string;

  shortDescription: string;

  /** Terms the brand requires to be shown with its cards. */
  disclaimer: string;

  /** HTTPS URL of the brand's logo. */
  @ApiProperty({ format: 'uri' })
  imageUrl: string;

  categories: string[];

  /** The brand's active items that match the request's filters. */
  items: CatalogItemDto[];
}

export class CatalogResponseDto {
  /** Sorted by brand name. */
  brands: CatalogBrandDto[];
}

export class CatalogBrandResponseDto {
  brand: CatalogBrandDto;
}

export function toCatalogItemDto(item: CatalogItemEntity): CatalogItemDto {
  return {
    utid: item.utid,
    rewardName: item.rewardName,
    currencyCode: item.currencyCode,
    valueType: item.valueType,
    faceValue: item.faceValue,
    minValue: item.minValue,
    maxValue: item.maxValue,
    countries: item.countries,
  };
}

export function toCatalogBrandDto({ brand, items }: CatalogBrandListing): CatalogBrandDto {
  return {
    brandKey: brand.brandKey,
    name: brand.name,
    description: brand.description,
    shortDescription: brand.shortDescription,
    disclaimer: brand.disclaimer,
    imageUrl: brand.imageUrl,
    categories: brand.categories,
    items: items.map(toCatalogItemDto),
  };
}
