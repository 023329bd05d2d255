import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, RequireAnyScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses, Clock, PageQueryDto, PageSizeQuery } from '@app/core';
import { CREATE_REPORT_EXAMPLES, CreateReportDto, ReportListDto, ReportResponseDto, toReportDto } from './dto/report.dto';
import type { ReportType } from './entities/report.entity';
import { ReportsService } from './reports.service';

const REPORT_ID = { name: 'id', description: "The report's id (`rpt_`).", example: 'rpt_4Hq0v2ZbT1YwXc9LmN3pRs' };

export class ListReportsQueryDto extends PageQueryDto {
  @PageSizeQuery(25)
  page_size: number = 25;
}

@ApiTags('Reports')
@Controller('v1/reports')
export class ReportsController {
  constructor(
    private readonly reports: ReportsService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(202)
  @RequireAnyScope('rewards:read', 'wallet:read')
  @ApiOperation({
    operationId: 'createReport',
    summary: 'Request a CSV report',
    description:
      'Answers at once with a PENDING report; a worker builds the CSV (`report.completed` when done). `filters` are those of the ' +
      "type's list, in camelCase: `GET /v1/rewards`' for `rewards` and `cards` (a cards report has the cards of the matching " +
      "rewards), `GET /v1/wallet/transactions`' for `wallet_transactions`; an unknown one is 400. The creation range " +
      '(`createdGte` / `createdLt`) defaults to the 366 days before now and spans at most 366 days. Needs `rewards:read` for ' +
      '`rewards` and `cards`, `wallet:read` for `wallet_transactions`.',
  })
  @ApiBodyExamples(CreateReportDto, CREATE_REPORT_EXAMPLES)
  @ApiResponse({ status: 202, type: ReportResponseDto, description: 'Accepted: the report is PENDING.' })
  @ApiErrorResponses(400)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateReportDto): Promise<ReportResponseDto> {
    return { report: toReportDto(await this.reports.create(principal, body.type as ReportType, body.filters, this.clock.now())) };
  }

  @Get()
  @RequireAnyScope('rewards:read', 'wallet:read')
  @ApiOperation({
    operationId: 'listReports',
    summary: 'Reports, newest first',
    description: 'The reports of the types the credential may read, until they expire (7 days after completion).',
  })
  @ApiErrorResponses(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListReportsQueryDto): Promise<ReportListDto> {
    const { reports, total } = await this.reports.list(principal, query.page, query.page_size);
    return { reports: reports.map(toReportDto), total };
  }

  @Get(':id')
  @RequireAnyScope('rewards:read', 'wallet:read')
  @ApiOperation({ operationId: 'getReport', summary: 'One report and its status' })
  @ApiParam(REPORT_ID)
  @ApiErrorResponses(404)
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ReportResponseDto> {
    return { report: toReportDto(await this.reports.get(principal, id)) };
  }

  @Get(':id/download')
  @RequireAnyScope('rewards:read', 'wallet:read')
  @ApiOperation({
    operationId: 'downloadReport',
    summary: "The report's CSV",
    description:
      'UTF-8, a header row of the API field names, RFC 4180 quoting; a text cell starting with `=`, `+`, `-`, `@`, a tab or a ' +
      "carriage return is prefixed with `'`. 404 once the report has expired (7 days after completion); 422 before it is COMPLETED.",
  })
  @ApiParam(REPORT_ID)
  @ApiResponse({ status: 200, description: 'The CSV.', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiErrorResponses(404, 422)
  async download(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Res() response: Response): Promise<void> {
    const report = await this.reports.downloadable(principal, id, this.clock.now());
    response.status(200);
    response.setHeader('Content-Type', 'text/csv; charset=utf-8');
    response.setHeader('Content-Disposition', `attachment; filename="${report.type}-${report.id}.csv"`);
    if (report.byteCount !== null) response.setHeader('Content-Length', String(report.byteCount));
    for await (const chunk of this.reports.chunks(report)) {
      if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
    }
    response.end();
  }
}
