import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, IsUrl, Matches, MaxLength, MinLength } from 'class-validator';
import { NoControlCharacters, RequestExamples } from '@app/core';
import { AccountEntity } from '../entities/account.entity';

export class AccountDto {
  /** Account identifier (`acct_`). */
  id: string;

  /** The account's name; e-mails use it when no sender name is set. */
  name: string;

  /** ISO 4217 currency of the account's wallet and of every reward it sends. */
  currency: string;

  /** Sender name shown on reward e-mails and the redemption page. */
  @ApiProperty({ type: String, nullable: true })
  senderName: string | null;

  /** HTTPS URL of the logo on reward e-mails and the redemption page. */
  @ApiProperty({ type: String, nullable: true })
  logoUrl: string | null;

  /** Brand colour as `#RRGGBB`. */
  @ApiProperty({ type: String, nullable: true, example: '#1A73E8' })
  brandColor: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

export class AccountResponseDto {
  account: AccountDto;
}

/** Only the fields present change; `null` clears one; `{}` changes nothing. */
export class UpdateBrandingDto {
  /** Up to 100 characters; `null` falls back to the account name. */
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 100, minLength: 1 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoControlCharacters()
  senderName?: string | null;

  /** An https URL, up to 2048 characters. */
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 2048, format: 'uri' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @NoControlCharacters()
  @IsUrl({ protocols: ['https'], require_protocol: true, require_tld: true }, { message: 'logoUrl must be an https URL' })
  logoUrl?: string | null;

  /** `#RRGGBB`. */
  @ApiProperty({ type: String, nullable: true, required: false, pattern: '^#[0-9A-Fa-f]{6}$', maxLength: 7 })
  @MaxLength(7)
  @IsOptional()
  @IsString()
  @Matches(/^#[0-9A-Fa-f]{6}$/, { message: 'brandColor must be a colour as #RRGGBB' })
  brandColor?: string | null;
}

/** Request examples of PATCH /v1/account/branding (docs/api-contract.md, Examples). */
export const UPDATE_BRANDING_EXAMPLES: RequestExamples<UpdateBrandingDto> = {
  brand: {
    summary: 'Sender name, logo and brand colour',
    value: { senderName: 'Acme Rewards', logoUrl: 'https://acme.example/logo.png', brandColor: '#1A73E8' },
  },
  reset: { summary: 'Back to the account name, no logo, the default colour', value: { senderName: null, logoUrl: null, brandColor: null } },
};

export function toAccountDto(account: AccountEntity): AccountDto {
  return {
    id: account.id,
    name: account.name,
    currency: account.currency,
    senderName: account.senderName,
    logoUrl: account.logoUrl,
    brandColor: account.brandColor,
    createdAt: account.createdAt.toISOString(),
  };
}
