import { Controller, Delete, Get, HttpCode, Param, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { userActor } from '@app/account';
import { AuditTrail, CurrentPrincipal, Principal, RequireDashboardScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { ConnectedAppsService } from '@app/oauth';
import { actorOf } from './audit-context';
import { ConnectedAppListDto } from './dto/connected-apps.dto';

@ApiTags('Connected apps')
@Controller('dashboard/api/connected-apps')
export class ConnectedAppsController {
  constructor(
    private readonly apps: ConnectedAppsService,
    private readonly audit: AuditTrail,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @Get()
  @RequireDashboardScope('connected_apps:manage')
  @ApiOperation({ operationId: 'listConnectedApps', summary: 'OAuth apps connected to the current account, newest first' })
  async list(@CurrentPrincipal() principal: Principal): Promise<ConnectedAppListDto> {
    const apps = await this.apps.list(principal.accountId);
    return { connectedApps: apps.map((app) => ({ ...app, createdAt: app.createdAt.toISOString() })) };
  }

  @Delete(':id')
  @RequireDashboardScope('connected_apps:manage')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeConnectedApp', summary: 'Disconnect an app: every token of the connection stops working at once' })
  @ApiResponse({ status: 204, description: 'Disconnected.' })
  @ApiErrorResponses(404)
  async revoke(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('id') id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.apps.revoke(principal.accountId, id, manager);
      await this.audit.record(manager, {
        accountId: principal.accountId,
        action: 'connected_app.revoked',
        targetType: 'oauth_connection',
        targetId: id,
        ...userActor(actorOf(principal, req.ip)),
      });
    });
  }
}
