import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ROLES, Role } from '@app/auth';
import { NoControlCharacters } from '@app/core';

export class MemberDto {
  /** `usr_` */
  userId: string;

  email: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  /** When they joined the account. */
  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

export class MemberListDto {
  members: MemberDto[];
}

export class MemberResponseDto {
  member: MemberDto;
}

export class ChangeRoleDto {
  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role: Role;
}

export class CreateInvitationDto {
  @IsEmail()
  @MaxLength(254)
  @NoControlCharacters()
  email: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role: Role;
}

export class InvitationDto {
  /** `inv_` */
  id: string;

  email: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  /** The link stops working at this time. */
  @ApiProperty({ type: String, format: 'date-time' })
  expiresAt: string;
}

export class InvitationListDto {
  /** Invitations not yet accepted, revoked or expired, newest first. */
  invitations: InvitationDto[];
}

export class InvitationResponseDto {
  invitation: InvitationDto;
}

export class InvitationPreviewDto {
  email: string;

  accountName: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  /** True when a user with this e-mail exists: they accept signed in, without a password. */
  existingUser: boolean;
}

export class InvitationPreviewResponseDto {
  invitation: InvitationPreviewDto;
}

export class AcceptInvitationDto {
  /** The new user's password (at least 12 characters, not a common one); omitted by an existing user. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;
}
