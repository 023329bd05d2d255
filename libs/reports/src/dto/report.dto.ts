import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional } from 'class-validator';
import { REPORT_STATUSES, REPORT_TYPES, ReportEntity } from '../entities/report.entity';

/**
 * The filters of a report: those of the list of its type, in camelCase (docs/reports.md). `rewards`
 * and `cards` take `GET /v1/rewards`' (a cards report has the cards of the matching rewards),
 * `wallet_transactions` `GET /v1/wallet/transactions`'. The creation range is always set in a
 * report's answer.
 */
export class ReportFiltersDto {
  @ApiPropertyOptional({ description: '`rewards`, `cards`: the reward status.', example: 'REDEEMED', maxLength: 32 })
  status?: string;
  @ApiPropertyOptional({ description: '`rewards`, `cards`.', maxLength: 100 })
  externalId?: string;
  @ApiPropertyOptional({ description: '`rewards`, `cards`: `FIXED` or `CHOICE`.', maxLength: 16 })
  type?: string;
  @ApiPropertyOptional({ description: '`rewards`, `cards`.', maxLength: 100 })
  campaign?: string;
  @ApiPropertyOptional({ description: 'Any type: the reward currency, or the wallet of the transactions.', example: 'USD', maxLength: 3 })
  currency?: string;
  @ApiPropertyOptional({ description: '`wallet_transactions`: the movement kind.', example: 'HOLD', maxLength: 32 })
  kind?: string;
  @ApiPropertyOptional({ description: '`wallet_transactions`: the top-up, reward, card or conversion id.', maxLength: 100 })
  relatedId?: string;
  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 40,
    description: 'Rows created at or after this instant. Default: 366 days before `createdLt`.',
    example: '2026-11-01T00:00:00.000Z',
  })
  createdGte?: string;
  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 40,
    description: 'Rows created before this instant. Default: now. At most 366 days after `createdGte`.',
    example: '2026-12-01T00:00:00.000Z',
  })
  createdLt?: string;
}

export class CreateReportDto {
  @ApiProperty({ enum: REPORT_TYPES, example: 'rewards' })
  @IsIn(REPORT_TYPES)
  type: string;

  /** The list filters of the report's type, in camelCase; one the type's list does not take is a 400. Default: everything created in the 366 days before now. */
  @ApiPropertyOptional({ type: ReportFiltersDto })
  @IsOptional()
  @IsObject()
  filters?: Record<string, unknown>;
}

export const CREATE_REPORT_EXAMPLES = {
  rewards: {
    summary: 'The redeemed rewards of November',
    value: { type: 'rewards', filters: { status: 'REDEEMED', createdGte: '2026-11-01T00:00:00Z', createdLt: '2026-12-01T00:00:00Z' } },
  },
  wallet: { summary: 'Every USD wallet movement of the last 366 days', value: { type: 'wallet_transactions', filters: { currency: 'USD' } } },
};

export class ReportDto {
  /** Report identifier (`rpt_`). */
  id: string;

  @ApiProperty({ enum: REPORT_TYPES })
  type: string;

  /** PENDING until a worker takes it, RUNNING while it is built, then COMPLETED (downloadable until `expiresAt`) or FAILED. */
  @ApiProperty({ enum: REPORT_STATUSES })
  status: string;

  /** The filters as checked, the creation range always set. */
  filters: ReportFiltersDto;

  /** Rows of the CSV, its header not counted (COMPLETED only). */
  @ApiPropertyOptional({ type: 'integer', minimum: 0 })
  rowCount?: number;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiPropertyOptional({ type: String, format: 'date-time' })
  completedAt?: string;

  /** 7 days after `completedAt`: the download answers 404 from then on, and the report is deleted. */
  @ApiPropertyOptional({ type: String, format: 'date-time' })
  expiresAt?: string;
}

export class ReportResponseDto {
  report: ReportDto;
}

export class ReportListDto {
  /** Newest first. */
  reports: ReportDto[];
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
}

export function toReportDto(report: ReportEntity): ReportDto {
  const dto: ReportDto = { id: report.id, type: report.type, status: report.status, filters: report.filters, createdAt: report.createdAt.toISOString() };
  if (report.status === 'COMPLETED') {
    dto.rowCount = report.rowCount!;
    dto.completedAt = report.completedAt!.toISOString();
    dto.expiresAt = report.expiresAt!.toISOString();
  }
  return dto;
}
