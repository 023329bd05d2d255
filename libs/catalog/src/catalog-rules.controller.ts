import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses } from '@app/core';
import { CatalogRulesService } from './catalog-rules.service';
import { CATALOG_RULES_EXAMPLES, CatalogRulesDto, CatalogRulesResponseDto, toCatalogRulesDto } from './dto/catalog-rules.dto';

@ApiTags('Account')
@Controller('v1/account/catalog-rules')
export class CatalogRulesController {
  constructor(private readonly rules: CatalogRulesService) {}

  @Get()
  @RequireScope('account:read')
  @ApiOperation({
    operationId: 'getCatalogRules',
    summary: "The account's restriction of the catalog",
    description: '`allowedBrandKeys: null` allows every brand; `blockedBrandKeys` are refused even when allowed.',
  })
  async get(@CurrentPrincipal() principal: Principal): Promise<CatalogRulesResponseDto> {
    return { catalogRules: toCatalogRulesDto(await this.rules.of(principal.accountId)) };
  }

  @Put()
  @RequireScope('account:write')
  @ApiOperation({
    operationId: 'replaceCatalogRules',
    summary: "Replace the account's catalog rules",
    description:
      'Both fields are required. From then on the catalog, FIXED and CHOICE sends, and recipients\' picks offer only ' +
      'brands the rules allow; cards already picked or issued are not affected. An unknown brand key is 422. ' +
      'Needs an API key with `write`; OAuth tokens cannot change catalog rules (403).',
  })
  @ApiBodyExamples(CatalogRulesDto, CATALOG_RULES_EXAMPLES)
  @ApiErrorResponses(400, 422)
  async replace(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: CatalogRulesDto,
  ): Promise<CatalogRulesResponseDto> {
    return { catalogRules: toCatalogRulesDto(await this.rules.replace(principal.accountId, body, origin)) };
  }
}
