import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Principal, Scope } from '@app/auth';
import { ForbiddenError, InsufficientScopeError, newId, NotFoundError, ValidationError } from '@app/core';
import { ReportEntity, ReportType, REPORT_TYPES } from './entities/report.entity';
import { ReportSources } from './report-sources';

/** How long a completed report can be downloaded (docs/reports.md). */
export const REPORT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The API side of reports (docs/reports.md): requests, their state, and the downloads of the CSV the worker built. */
@Injectable()
export class ReportsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sources: ReportSources,
  ) {}

  /** Records a PENDING report once its filters pass the list's checks; a worker builds it (ReportBuilder). */
  async create(principal: Principal, type: ReportType, filters: unknown, now: Date): Promise<ReportEntity> {
    const source = this.sources.of(type);
    requireScope(principal, source.scope, type);
    const checked = await source.filters(principal.accountId, filters, now);
    const id = newId('rpt');
    await this.dataSource.getRepository(ReportEntity).insert({ id, accountId: principal.accountId, type, status: 'PENDING', filters: checked });
    return this.get(principal, id);
  }

  /**
   * The account's reports, newest first, of the types the credential may read (a key with only
   * `wallet:read` sees the transaction reports).
   */
  async list(principal: Principal, page: number, pageSize: number): Promise<{ reports: ReportEntity[]; total: number }> {
    const types = REPORT_TYPES.filter((type) => principal.scopes.has(this.sources.of(type).scope));
    const [reports, total] = await this.dataSource.getRepository(ReportEntity).findAndCount({
      where: types.map((type) => ({ accountId: principal.accountId, type })),
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * pageSize,
      take: pageSize,
    });
    return { reports, total };
  }

  /** One report of the account; another account's, or none, is 404. */
  async get(principal: Principal, id: string): Promise<ReportEntity> {
    const report = await this.dataSource.getRepository(ReportEntity).findOneBy({ id, accountId: principal.accountId });
    if (!report) throw new NotFoundError('Report');
    requireScope(principal, this.sources.of(report.type).scope, report.type);
    return report;
  }

  /**
   * The report to download: COMPLETED and not expired by `now` (then 404, as after its deletion);
   * PENDING, RUNNING or FAILED is 422.
   */
  async downloadable(principal: Principal, id: string, now: Date): Promise<ReportEntity> {
    const report = await this.get(principal, id);
    if (report.status === 'COMPLETED' && report.expiresAt!.getTime() <= now.getTime()) throw new NotFoundError('Report');
    if (report.status !== 'COMPLETED') throw new ValidationError(`The report is ${report.status}; it can be downloaded once COMPLETED.`);
    return report;
  }

  /** The CSV of a completed report, a stored piece (about 1 MB) at a time, in order. */
  async *chunks(report: ReportEntity): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const [row]: { data: Buffer }[] = await this.dataSource.query(`SELECT data FROM report_chunks WHERE report_id = $1 AND attempt = $2 AND seq = $3`, [
        report.id,
        report.attempts,
        seq,
      ]);
      if (!row) return;
      yield row.data;
    }
  }
}

/** A report of rewards or cards needs `rewards:read`, of wallet transactions `wallet:read` (the guard let in either). */
function requireScope(principal: Principal, scope: Scope, type: string): void {
  if (principal.scopes.has(scope)) return;
  const message = `A ${type} report needs the scope ${scope}.`;
  throw principal.credentialKind === 'session' ? new ForbiddenError(message) : new InsufficientScopeError(scope, message);
}
