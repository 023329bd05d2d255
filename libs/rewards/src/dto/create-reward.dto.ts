import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { NoControlCharacters, RequestExamples } from '@app/core';
import { RECIPIENT_LANGUAGES } from '@app/mail';
import { CurrencyCode } from '@app/wallet';
import { REWARD_TYPES } from '../entities/reward.entity';

/** RFC 3339 §5.6 date-time: a date, a time and an offset (a time without one would be read in the server's zone). */
const RFC3339_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** E.164: `+`, a country code not starting with 0, at most 15 digits in all. */
const E164_SOURCE = '^\\+[1-9][0-9]{1,14}$';
const E164 = new RegExp(E164_SOURCE);

export class RecipientDto {
  /** Where the reward e-mail goes. */
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(254)
  @NoControlCharacters()
  email: string;

  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoControlCharacters()
  firstName: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  lastName?: string;

  /**
   * The language of the e-mail and the redemption page (docs/recipient-language.md). Without it the
   * e-mail is in English and the page follows the recipient's browser.
   */
  @ApiPropertyOptional({ enum: RECIPIENT_LANGUAGES, example: 'fr' })
  @IsOptional()
  @IsIn(RECIPIENT_LANGUAGES, { message: `language must be one of: ${RECIPIENT_LANGUAGES.join(', ')}` })
  language?: (typeof RECIPIENT_LANGUAGES)[number];

  /**
   * The recipient's mobile number in E.164 (`+`, the country code and the number, no spaces). When
   * given, a short text with the sender's name and the reward's link is sent as well as the e-mail
   * (docs/delivery.md, SMS); the reward shows how it went in `smsStatus`.
   */
  @ApiPropertyOptional({ type: String, pattern: E164_SOURCE, maxLength: 16, example: '+14155550123' })
  @IsOptional()
  @IsString()
  @Matches(E164, { message: 'phone must be an E.164 number: + and the country code, then the number, no spaces (e.g. +14155550123)' })
  phone?: string;
}

export class CreateRewardDto {
  /** FIXED: one card chosen by `utid`. CHOICE: the recipient picks cards up to the value. */
  @ApiProperty({ enum: REWARD_TYPES })
  @IsIn(REWARD_TYPES)
  type: 'FIXED' | 'CHOICE';

  /** Value in cents of the reward's currency. FIXED: the item's face value, or within its range. */
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  @ApiProperty({ type: 'integer' })
  valueCents: number;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientDto)
  recipient: RecipientDto;

  @CurrencyCode({
    required: false,
    description:
      "The reward's currency. CHOICE: the recipient is offered cards in it (default: the account's primary currency). " +
      "FIXED: always the item's currency; it may be left out, and when given must be the item's (422 otherwise). " +
      'The value is held in this currency’s wallet unless `fundingCurrency` is given.',
  })
  currency?: string;

  @CurrencyCode({
    required: false,
    description:
      'Fund the reward from this currency’s wallet: the whole value is converted at the current rate (`GET /v1/fx/rates`) in the ' +
      "send's own transaction, `ceil(valueCents / rate)` taken from this wallet, and held in the reward currency's wallet " +
      "(funds already there are not used). Must differ from the reward's currency (400). The reward shows it in `fx`. " +
      '503 while the rates are older than 24 h.',
    example: 'USD',
  })
  fundingCurrency?: string;

  /** Catalog item (required for FIXED, refused for CHOICE). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoControlCharacters()
  utid?: string;

  /** CHOICE only: brands the recipient may pick from. Omit for the whole catalog. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  @NoControlCharacters({}, { each: true })
  allowedBrandKeys?: string[];

  /** CHOICE only: when unused value returns to the wallet. Must be in the future. */
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    maxLength: 40,
    description: 'CHOICE only: when unused value returns to the wallet. Must be in the future. An RFC 3339 date-time with its offset (`Z` or `+02:00`); one without an offset is 400.',
  })
  @IsOptional()
  @MaxLength(40)
  @Matches(RFC3339_DATE_TIME, { message: 'expiresAt must be an RFC 3339 date-time with an offset, e.g. 2027-01-31T12:00:00Z' })
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 timestamp' })
  expiresAt?: string;

  /** A scheduled send: when the e-mail goes out (docs/delivery.md, Scheduled sends). */
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    maxLength: 40,
    description:
      'Schedules the send: the reward is created and its value held now, it stays `CREATED` (`emailStatus` `SCHEDULED`) and the e-mail goes out ' +
      '(and a FIXED reward\'s card is ordered) at this time. At least 60 seconds and at most 365 days ahead; `expiresAt`, when given, must be later. ' +
      'An RFC 3339 date-time with its offset. Omit to send at once.',
  })
  @IsOptional()
  @MaxLength(40)
  @Matches(RFC3339_DATE_TIME, { message: 'deliverAt must be an RFC 3339 date-time with an offset, e.g. 2027-01-31T12:00:00Z' })
  @IsISO8601({ strict: true }, { message: 'deliverAt must be an ISO 8601 timestamp' })
  deliverAt?: string;

  /** Shown in the e-mail and on the redemption page. */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @NoControlCharacters({ allowLineBreaks: true })
  message?: string;

  /** Your own reference; filter the list by it. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @NoControlCharacters()
  externalId?: string;

  /** Free-form label for reporting. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoControlCharacters()
  campaign?: string;

  /**
   * `false`: this reward gets no reminder e-mails, whatever the account's reminder settings
   * (`PUT /v1/account/reminder-settings`). Default `true`.
   */
  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @IsBoolean()
  reminders?: boolean;
}

export class CorrectedRecipientDto {
  /** The right address: the e-mail goes there, with the reward's one link. */
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(254)
  @NoControlCharacters()
  email: string;
}

/** `PATCH /v1/rewards/{id}`: corrects the recipient's address (docs/delivery.md, Correcting the address). */
export class UpdateRewardDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CorrectedRecipientDto)
  recipient: CorrectedRecipientDto;
}

export class BulkCreateRewardsDto {
  /** Up to 500 rewards, processed in order. Each item is validated on its own. */
  @ApiProperty({ type: [CreateRewardDto], minItems: 1, maxItems: 500 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  rewards: unknown[];
}

/*
 * Request examples (docs/api-contract.md, Examples): real items of the sandbox catalog (docs/catalog.md),
 * `U356303` is Amazon.com's $25 card and `U784273` its $10 one. test/docs/openapi-examples.e2e-spec.ts
 * sends each to the service.
 */
const FIXED_EXAMPLE = {
  type: 'FIXED',
  utid: 'U356303',
  valueCents: 2500,
  recipient: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  message: 'Thank you for your order!',
  externalId: 'order-1042',
  campaign: 'spring-thanks',
} satisfies CreateRewardDto;

const CHOICE_EXAMPLE = {
  type: 'CHOICE',
  valueCents: 5000,
  recipient: { email: 'grace@example.com', firstName: 'Grace', language: 'fr', phone: '+33612345678' },
  allowedBrandKeys: ['amazon-us', 'starbucks', 'target'],
  expiresAt: '2030-12-31T23:59:59Z',
  message: 'Pick the cards you like.',
  externalId: 'survey-7731',
} satisfies CreateRewardDto;

export const CREATE_REWARD_EXAMPLES: RequestExamples<CreateRewardDto> = {
  fixed: {
    summary: 'FIXED: one Amazon.com $25 card',
    description: '`utid` names the catalog item (`GET /v1/catalog`); `valueCents` is its face value in cents (`faceValue` 25 is 2500).',
    value: FIXED_EXAMPLE,
  },
  choice: {
    summary: 'CHOICE: $50 to spend on Amazon.com, Starbucks or Target',
    description:
      'No `utid`: the recipient picks cards on the redemption page. `allowedBrandKeys` and `expiresAt` are optional; ' +
      '`recipient.language` puts the e-mail and the page in French; `recipient.phone` (E.164) sends a text with the link as well.',
    value: CHOICE_EXAMPLE,
  },
};

export const BULK_CREATE_REWARDS_EXAMPLES: RequestExamples<BulkCreateRewardsDto> = {
  mixed: {
    summary: 'A FIXED and a CHOICE reward in one request',
    value: {
      rewards: [
        { type: 'FIXED', utid: 'U784273', valueCents: 1000, recipient: { email: 'alan@example.com', firstName: 'Alan' }, externalId: 'order-1043' },
        { type: 'CHOICE', valueCents: 2500, recipient: { email: 'katherine@example.com', firstName: 'Katherine' }, externalId: 'order-1044' },
      ] satisfies CreateRewardDto[],
    },
  },
};

export const UPDATE_REWARD_EXAMPLES: RequestExamples<UpdateRewardDto> = {
  address: {
    summary: 'Correct a mistyped address',
    description: 'The reward must not be opened yet and must have value left; the e-mail goes again to the new address, with the same link.',
    value: { recipient: { email: 'ada.lovelace@example.com' } },
  },
};
