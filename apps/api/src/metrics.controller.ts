import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { clientAddress, Public } from '@app/auth';
import { APP_CONFIG, AppConfig, ForbiddenError, metricsAccessRefusal, metricsRegistry, metricsText } from '@app/core';

/**
 * Prometheus metrics of this API process, for operators (not part of the merchant API, so not in
 * openapi.yaml). Guarded by METRICS_TOKEN, or to loopback clients without one; docs/operations.md.
 */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  async metrics(@Req() request: Request, @Res() response: Response): Promise<void> {
    const refusal = metricsAccessRefusal(this.config.metricsToken, request.headers.authorization, clientAddress(request));
    if (refusal) throw new ForbiddenError(refusal);
    response.setHeader('Cache-Control', 'no-store');
    response.type(metricsRegistry.contentType).send(await metricsText());
  }
}
