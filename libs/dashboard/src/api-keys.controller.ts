import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentPrincipal, Principal, RequireDashboardScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { actorOf } from './audit-context';
import { DashboardApiKeysService } from './dashboard-api-keys.service';
import { ApiKeyListDto, ApiKeyListQueryDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-keys.dto';

@ApiTags('API keys')
@Controller('dashboard/api/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: DashboardApiKeysService) {}

  @Get()
  @RequireDashboardScope('api_keys:manage')
  @ApiOperation({ operationId: 'listApiKeys', summary: 'The API keys of the current account, revoked ones included, newest first' })
  @ApiErrorResponses(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ApiKeyListQueryDto): Promise<ApiKeyListDto> {
    return this.keys.list(principal.accountId, query.page, query.page_size);
  }

  @Post()
  @RequireDashboardScope('api_keys:manage')
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create a key; its secret is in this answer only' })
  @ApiResponse({ status: 201, type: CreatedApiKeyDto })
  @ApiErrorResponses(400)
  create(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(principal.accountId, actorOf(principal, req.ip), body);
  }

  @Delete(':id')
  @RequireDashboardScope('api_keys:manage')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke a key: refused at once on every instance' })
  @ApiResponse({ status: 204, description: 'Revoked (or already was).' })
  @ApiErrorResponses(404)
  async revoke(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('id') id: string): Promise<void> {
    await this.keys.revoke(principal.accountId, actorOf(principal, req.ip), id);
  }
}
