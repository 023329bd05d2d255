import { IsEmail, IsString, Matches, MaxLength } from 'class-validator';
import { NoControlCharacters } from '@app/core';

export class ChangePasswordDto {
  @IsString()
  @MaxLength(1024)
  currentPassword: string;

  /** At least 12 characters, not one of the most common passwords. */
  @IsString()
  @MaxLength(1024)
  newPassword: string;
}

export class PasswordResetRequestDto {
  @IsEmail()
  @MaxLength(254)
  @NoControlCharacters()
  email: string;
}

export class PasswordResetDto {
  /** At least 12 characters, not one of the most common passwords. */
  @IsString()
  @MaxLength(1024)
  password: string;
}

export class TotpSetupDto {
  /** Base32; enter it in an authenticator app, or use `otpauthUrl`. */
  secret: string;

  /** `otpauth://totp/...`, for a QR code. */
  otpauthUrl: string;
}

export class TotpCodeDto {
  /** The 6-digit code the authenticator app shows now. */
  @Matches(/^\d{6}$/, { message: 'must be 6 digits' })
  code: string;
}
