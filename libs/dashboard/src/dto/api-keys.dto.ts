import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Max, Min, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { API_KEY_SCOPES, type ApiKeyScope } from '@app/account';
import { API_SCOPES, type Scope } from '@app/auth';
import { NoControlCharacters, PageQueryDto, PageSizeQuery } from '@app/core';

export class ApiKeyListQueryDto extends PageQueryDto {
  @PageSizeQuery(25)
  page_size: number = 25;
}

/**
 * A key's spending limits (docs/controls.md, Key limits), in the account's primary currency's minor
 * units; rewards in other currencies count at the current mid rate. Either may be left out (or null).
 */
export class ApiKeyLimitsDto {
  /** The most one send through the key may be worth (1 to 100,000,000). */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000, nullable: true, required: false, example: 10_000 })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  maxRewardCents?: number | null;

  /** The most the key's sends of the last 24 hours (rolling) may be worth together (1 to 100,000,000). */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000, nullable: true, required: false, example: 100_000 })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  dailyLimitCents?: number | null;
}

/** A key's limits as stored: `null` where it has none. */
export class StoredApiKeyLimitsDto {
  @ApiProperty({ type: 'integer', nullable: true, example: 10_000 })
  maxRewardCents: number | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 100_000 })
  dailyLimitCents: number | null;
}

export interface ApiKeyCreatorDto {
  /** `usr_` */
  userId: string;
  email: string;
}

export class ApiKeyDto {
  /** `key_` */
  id: string;

  name: string;

  @ApiProperty({ enum: API_KEY_SCOPES, isArray: true })
  scopes: ApiKeyScope[];

  /**
   * What the key may do: `read` and `write` as the key's `scopes` say, but never more than the role
   * its creator had when it was made (a developer's `write` key: `rewards:write` and `webhooks:write`).
   */
  @ApiProperty({ enum: API_SCOPES, isArray: true })
  grantedScopes: Scope[];

  /** The dashboard member who made the key; `null` for a key made by an operator (the CLI). */
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { userId: { type: 'string', description: '`usr_`' }, email: { type: 'string' } },
    required: ['userId', 'email'],
    // The list above is the object's own fields; this says the property itself is always present.
    selfRequired: true,
  })
  createdBy: ApiKeyCreatorDto | null;

  /** The secret's last four characters, to tell keys apart. */
  last4: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  /** Precise to about a minute. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastUsedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt: string | null;

  /** Its spending limits; `null` when it has none. */
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { maxRewardCents: { type: 'integer', nullable: true }, dailyLimitCents: { type: 'integer', nullable: true } },
    required: ['maxRewardCents', 'dailyLimitCents'],
    selfRequired: true,
  })
  limits: StoredApiKeyLimitsDto | null;
}

export class ApiKeyListDto {
  apiKeys: ApiKeyDto[];

  total: number;
}

export class CreateApiKeyDto {
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  name: string;

  @ApiProperty({ enum: API_KEY_SCOPES, isArray: true, minItems: 1 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(2)
  @IsIn(API_KEY_SCOPES, { each: true })
  scopes: ApiKeyScope[];

  /** Optional spending limits of the key. */
  @ApiProperty({ type: ApiKeyLimitsDto, required: false })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ApiKeyLimitsDto)
  limits?: ApiKeyLimitsDto;
}

export class CreatedApiKeyDto {
  apiKey: ApiKeyDto;

  /** The `sk_` secret: shown this once, never again. */
  secret: string;
}
