import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiErrorResponses, NotFoundError } from '@app/core';
import { rulesAllow, rulesCacheKey } from './catalog-rules';
import { CatalogRulesService } from './catalog-rules.service';
import { CatalogService } from './catalog.service';
import { CatalogResponseCache } from './catalog-response-cache';
import { CatalogBrandResponseDto, CatalogQueryDto, CatalogResponseDto, toCatalogBrandDto } from './dto/catalog.dto';

const CACHE_HEADERS = {
  ETag: { description: 'Strong validator of this representation; send it back as `If-None-Match`.', schema: { type: 'string' } },
  'Cache-Control': { description: '`private, max-age=300`: reuse for five minutes, then revalidate.', schema: { type: 'string' } },
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  required: false,
  description: 'ETags of cached copies (or `*`); a match answers `304` with no body. A longer value never matches.',
  schema: { type: 'string', maxLength: 1000 },
};
const NOT_MODIFIED = { status: 304, description: 'The cached copy named in `If-None-Match` is current.', headers: CACHE_HEADERS };

@ApiTags('Catalog')
@Controller('v1/catalog')
export class CatalogController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly cache: CatalogResponseCache,
    private readonly rules: CatalogRulesService,
  ) {}

  @Get()
  @RequireScope('catalog:read')
  @ApiOperation({
    operationId: 'listCatalog',
    summary: 'Active brands and their orderable items',
    description:
      'Sorted by brand name. Each filter narrows the items; a brand left without items is not listed, nor is a brand ' +
      "the account's catalog rules do not allow. " +
      'The catalog changes rarely: cache it and revalidate with `If-None-Match`.',
  })
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ type: CatalogResponseDto, headers: CACHE_HEADERS })
  @ApiResponse(NOT_MODIFIED)
  @ApiErrorResponses(400)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CatalogQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string | undefined> {
    const filters = {
      search: query.search?.toLowerCase() || undefined,
      currency: query.currency?.toUpperCase(),
      country: query.country?.toUpperCase(),
    };
    // The rules are part of the resource: the cached body and its ETag change with them.
    const rules = await this.rules.of(principal.accountId);
    return this.cache.respond(request, response, `catalog ${JSON.stringify(filters)}${rulesCacheKey(rules)}`, () =>
      this.catalog.snapshot(async (manager): Promise<CatalogResponseDto> => ({
        brands: (await this.catalog.listActiveBrands(filters, manager))
          .filter((listing) => rulesAllow(rules, listing.brand.brandKey))
          .map(toCatalogBrandDto),
      })),
    );
  }

  @Get('brands/:brandKey')
  @RequireScope('catalog:read')
  @ApiOperation({
    operationId: 'getCatalogBrand',
    summary: 'One active brand with all its orderable items',
    description: "A brand the account's catalog rules do not allow is 404, as an unknown one.",
  })
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ type: CatalogBrandResponseDto, headers: CACHE_HEADERS })
  @ApiResponse(NOT_MODIFIED)
  @ApiParam({ name: 'brandKey', description: 'A `brandKey` of `GET /v1/catalog`.', example: 'amazon-us' })
  @ApiErrorResponses(404)
  async getBrand(
    @CurrentPrincipal() principal: Principal,
    @Param('brandKey') brandKey: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string | undefined> {
    const rules = await this.rules.of(principal.accountId);
    // A disallowed brand is missing for this account, even for a revalidation that guesses its ETag.
    if (!rulesAllow(rules, brandKey)) throw new NotFoundError('Catalog brand');
    return this.cache.respond(
      request,
      response,
      `brand ${brandKey}${rulesCacheKey(rules)}`,
      () =>
        this.catalog.snapshot(async (manager): Promise<CatalogBrandResponseDto> => {
          const listing = await this.catalog.findActiveBrand(brandKey, manager);
          if (!listing) throw new NotFoundError('Catalog brand');
          return { brand: toCatalogBrandDto(listing) };
        }),
      async () => (await this.catalog.activeBrandKeys([brandKey])).length > 0,
    );
  }
}
