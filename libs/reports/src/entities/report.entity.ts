import { Column, Entity, PrimaryColumn } from 'typeorm';

export const REPORT_TYPES = ['rewards', 'cards', 'wallet_transactions'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const REPORT_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** A requested report (docs/reports.md); its CSV is in report_chunks. */
@Entity('reports')
export class ReportEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column('text')
  type: ReportType;

  @Column({ type: 'text', default: 'PENDING' })
  status: ReportStatus;

  /** The list filters as checked at the request, camelCase, the creation range always set. */
  @Column('jsonb')
  filters: Record<string, string>;

  @Column({ name: 'row_count', type: 'bigint', nullable: true, transformer: { to: (v: unknown) => v, from: (v: string | null) => (v === null ? null : Number(v)) } })
  rowCount: number | null;

  @Column({ name: 'byte_count', type: 'bigint', nullable: true, transformer: { to: (v: unknown) => v, from: (v: string | null) => (v === null ? null : Number(v)) } })
  byteCount: number | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason: string | null;

  /** Takes of the build (ReportBuilder's lease); the CSV pieces are those of the attempt that completed it. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** The build's lease (ReportBuilder), null while none is held. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true, select: false })
  leasedUntil: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true, select: false })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
