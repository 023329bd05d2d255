import { Body, Controller, Get, Headers, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses, parseIdempotencyKey } from '@app/core';
import {
  CREATE_FX_CONVERSION_EXAMPLES,
  CREATE_FX_QUOTE_EXAMPLES,
  CreateFxConversionDto,
  CreateFxQuoteDto,
  FxConversionResponseDto,
  FxQuoteResponseDto,
  FxRateListDto,
  FxRatesQueryDto,
} from './dto/fx.dto';
import { FxService } from './fx.service';

@ApiTags('FX')
@Controller('v1/fx')
export class FxController {
  constructor(private readonly fx: FxService) {}

  @Get('rates')
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'listFxRates',
    summary: 'Exchange rates between the supported currencies',
    description:
      '`rate` is units of `to` per one unit of `from`, markup included; `asOf` says when the rate source gave it. ' +
      'Rates older than 24 h are still listed, but quotes and conversions at them answer 503.',
  })
  @ApiErrorResponses(400)
  async rates(@CurrentPrincipal() principal: Principal, @Query() query: FxRatesQueryDto): Promise<FxRateListDto> {
    return { rates: await this.fx.listRates(principal.accountId, query.from) };
  }

  @Post('quotes')
  @HttpCode(201)
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'createFxQuote',
    summary: 'Quote a conversion, binding for 60 s',
    description:
      'What `toAmountCents` of `to` costs in `from` at the current rate: `fromAmountCents = ceil(toAmountCents / rate)`. ' +
      'Converting it within 60 s (`POST /v1/fx/conversions`) applies exactly these amounts. 503 while the rates are older than 24 h.',
  })
  @ApiBodyExamples(CreateFxQuoteDto, CREATE_FX_QUOTE_EXAMPLES)
  @ApiErrorResponses(400)
  async quote(@CurrentPrincipal() principal: Principal, @Body() body: CreateFxQuoteDto): Promise<FxQuoteResponseDto> {
    return { quote: await this.fx.createQuote(principal.accountId, body) };
  }

  @Post('conversions')
  @RequireScope('wallet:write')
  @ApiOperation({
    operationId: 'createFxConversion',
    summary: 'Convert between wallets at a quote',
    description:
      'Takes `fromAmountCents` from the `from` wallet and adds `toAmountCents` to the `to` wallet (opening it), in one transaction. ' +
      'A quote converts once, within 60 s of its making: used or expired is 422; an unknown quote or another account’s is 404. ' +
      'Needs an API key with `write` (or a dashboard admin): OAuth tokens can never convert (403).',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Up to 100 characters, scoped to your account. A retry with the same key and body replays the first response with status 200 ' +
      'and `Idempotent-Replayed: true`; the same key with another body is 422. A request that fails stores nothing.',
  })
  @ApiResponse({ status: 201, type: FxConversionResponseDto, description: 'Converted: both wallets moved.' })
  @ApiResponse({ status: 200, type: FxConversionResponseDto, description: 'An idempotent replay of the first response (`Idempotent-Replayed: true`).' })
  @ApiBodyExamples(CreateFxConversionDto, CREATE_FX_CONVERSION_EXAMPLES)
  @ApiErrorResponses(400, 402, 404, 422)
  async convert(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: CreateFxConversionDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<FxConversionResponseDto> {
    const outcome = await this.fx.convert(principal.accountId, body.quoteId, parseIdempotencyKey(idempotencyKey), origin);
    response.status(outcome.status);
    if (outcome.replayed) response.setHeader('Idempotent-Replayed', 'true');
    return outcome.body;
  }
}
