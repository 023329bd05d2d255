import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ALL_SCOPES, ROLES, Role, Scope } from '@app/auth';
import { NoControlCharacters } from '@app/core';

export class SignInDto {
  @IsEmail()
  @MaxLength(254)
  @NoControlCharacters()
  email: string;

  @IsString()
  @MaxLength(1024)
  password: string;

  /** The 6-digit code of the authenticator app, for a user with two-factor sign-in. */
  @IsOptional()
  @Matches(/^\d{6}$/, { message: 'must be 6 digits' })
  totpCode?: string;
}

export class SwitchAccountDto {
  /** One of the session's memberships (`acct_`). */
  @IsString()
  @MaxLength(100)
  accountId: string;
}

export class SessionUserDto {
  /** `usr_` */
  id: string;

  email: string;

  /** Whether the user signs in with a code of an authenticator app as well as the password. */
  twoFactorEnabled: boolean;
}

export class SessionMembershipDto {
  accountId: string;

  accountName: string;

  @ApiProperty({ enum: ROLES })
  role: Role;
}

export class SessionDto {
  user: SessionUserDto;

  /** Every account the user belongs to, by name. */
  memberships: SessionMembershipDto[];

  /** The account `/v1` requests made with the session act on; null when the user has none. */
  @ApiProperty({ type: String, nullable: true })
  currentAccountId: string | null;

  /** What the session may do on the current account (its role's scopes, which every call is checked against); empty without one. */
  @ApiProperty({ enum: ALL_SCOPES, isArray: true })
  scopes: Scope[];

  /** Send it as `X-CSRF-Token` on every POST, PATCH, PUT and DELETE made with the session cookie. */
  csrfToken: string;
}

/** The error of a refused sign-in: `totp_required` when the password was right and a code is needed. */
export class SignInErrorDto {
  @ApiProperty({ enum: ['unauthorized', 'totp_required'] })
  error: string;

  message: string;
}
