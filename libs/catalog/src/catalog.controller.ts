import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '@app/auth';
import { ApiErrorResponses, NotFoundError } from '@app/core';
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
  description: 'ETags of cached copies (or `*`); a match answers `304` with no body.',
};
const NOT_MODIFIED = { status: 304, description: 'The cached copy named in `If-None-Match` is current.', headers: CACHE_HEADERS };

@ApiTags('Catalog')
@Controller('v1/catalog')
export class CatalogController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly cache: CatalogResponseCache,
  ) {}

  @Get()
  @RequireScope('catalog:read')
  @ApiOperation({
    operationId: 'listCatalog',
    summary: 'Active brands and their orderable items',
    description:
      'Sorted by brand name. Each filter narrows the items; a brand left without items is not listed. ' +
      'The catalog changes rarely: cache it and revalidate with `If-None-Match`.',
  })
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ type: CatalogResponseDto, headers: CACHE_HEADERS })
  @ApiResponse(NOT_MODIFIED)
  @ApiErrorResponses(400)
  list(
    @Query() query: CatalogQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string | undefined> {
    const filters = {
      search: query.search?.toLowerCase() || undefined,
      currency: query.currency?.toUpperCase(),
      country: query.country?.toUpperCase(),
    };
    return this.cache.respond(request, response, `catalog ${JSON.stringify(filters)}`, () =>
      this.catalog.snapshot(async (manager): Promise<CatalogResponseDto> => ({
        brands: (await this.catalog.listActiveBrands(filters, manager)).map(toCatalogBrandDto),
      })),
    );
  }

  @Get('brands/:brandKey')
  @RequireScope('catalog:read')
  @ApiOperation({ operationId: 'getCatalogBrand', summary: 'One active brand with all its orderable items' })
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ type: CatalogBrandResponseDto, headers: CACHE_HEADERS })
  @ApiResponse(NOT_MODIFIED)
  @ApiErrorResponses(404)
  getBrand(
    @Param('brandKey') brandKey: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string | undefined> {
    return this.cache.respond(
      request,
      response,
      `brand ${brandKey}`,
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
