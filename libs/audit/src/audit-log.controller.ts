import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireDashboardScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { AuditLog } from './audit-log.service';
import { AuditLogQueryDto, AuditLogResponseDto, toAuditEntryDto } from './dto/audit-log.dto';

/** A dashboard-only route: no API key or OAuth token can hold `audit_log:read`. */
@ApiTags('Audit log')
@Controller('dashboard/api/audit-log')
export class AuditLogController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @RequireDashboardScope('audit_log:read')
  @ApiOperation({ operationId: 'listAuditLog', summary: 'Who changed what in the account, newest first' })
  @ApiErrorResponses(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: AuditLogQueryDto): Promise<AuditLogResponseDto> {
    const { entries, total } = await this.audit.list(principal.accountId, { page: query.page, pageSize: query.page_size, action: query.action });
    return { entries: entries.map(toAuditEntryDto), total };
  }
}
