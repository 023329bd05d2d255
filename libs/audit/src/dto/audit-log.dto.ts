import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto, PageSizeQuery } from '@app/core';
import { AUDIT_ACTOR_TYPES } from '../audit-actor';
import { AUDIT_ACTIONS, AuditEntry } from '../audit-log.service';

export class AuditLogQueryDto extends PageQueryDto {
  @PageSizeQuery(50)
  page_size: number = 50;

  /** Only entries of this action. */
  @ApiPropertyOptional({ enum: AUDIT_ACTIONS })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: string;
}

export class AuditActorDto {
  @ApiProperty({ enum: AUDIT_ACTOR_TYPES })
  type: string;

  /** The user, API key or OAuth app id; `null` for the operator. */
  @ApiProperty({ type: String, nullable: true })
  id: string | null;

  /** A readable name: the user's e-mail, the key's name and last 4, the app's name. */
  @ApiProperty({ type: String, nullable: true })
  label: string | null;
}

export class AuditEntryDto {
  /** Entry identifier (`aud_`). */
  id: string;

  actor: AuditActorDto;

  @ApiProperty({ enum: AUDIT_ACTIONS })
  action: string;

  @ApiProperty({ type: String, nullable: true })
  targetType: string | null;

  @ApiProperty({ type: String, nullable: true })
  targetId: string | null;

  /** What changed, in the action's own terms. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  /** The client address of the request that made the change; `null` outside a request. */
  @ApiProperty({ type: String, nullable: true })
  ipAddress: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

export class AuditLogResponseDto {
  entries: AuditEntryDto[];
  total: number;
}

export function toAuditEntryDto(entry: AuditEntry): AuditEntryDto {
  return { ...entry, actor: { ...entry.actor }, createdAt: entry.createdAt.toISOString() };
}
