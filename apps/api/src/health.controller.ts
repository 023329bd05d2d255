import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '@app/auth';
import { SupplierGate } from '@app/catalog';
import { ReadRouting, RedisClient } from '@app/core';
import { FxRates } from '@app/fx';

/**
 * Liveness says the process answers; readiness says it can serve. PostgreSQL holds all state, so
 * without it the process is not ready (503). Without Redis it still serves (rate limits per
 * process, queue work picked up by the sweepers when Redis returns), so it stays ready and says
 * it is degraded: taking every instance out of a load balancer for a Redis outage would turn a
 * degraded service into none. Readiness also reports the card supplier's circuit (`closed`,
 * `half_open`, `open`) without turning red for it: a paused supplier delays card issuance, the API
 * still serves (docs/operations.md, Degraded modes and Health). Likewise the exchange rates: `fx`
 * says whether they are fresh, stale (conversions answer 503) or missing (docs/currencies.md). With
 * DATABASE_READ_URL, `readReplica` says whether the replica serves reads (`ok`), or is `lagging` or
 * `down` and its reads go to the primary: degraded, still ready (docs/scaling.md, Read replica).
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisClient,
    private readonly supplierGate: SupplierGate,
    private readonly fxRates: FxRates,
    private readonly reads: ReadRouting,
  ) {}

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) response: Response) {
    const [postgres, redis, supplier, fx] = await Promise.all([
      withTimeout(this.dataSource.query('SELECT 1').then(() => 'ok' as const)),
      // Just after start the connection may not be up yet: wait for it (within the check's time) rather than say "down".
      withTimeout(this.redis.connected.then(() => this.redis.ping()).then(() => 'ok' as const)),
      withTimeout(this.supplierGate.state(), 'unknown' as const),
      withTimeout(this.fxRates.health(), this.fxRates.unknownHealth()),
    ]);
    const ready = postgres === 'ok';
    const readReplica = this.reads.health();
    const degraded = redis !== 'ok' || (readReplica !== null && readReplica.status !== 'ok');
    response.status(ready ? 200 : 503);
    return { status: !ready ? 'unavailable' : degraded ? 'degraded' : 'ok', checks: { postgres, redis }, supplier, fx, ...(readReplica ? { readReplica } : {}) };
  }
}

async function withTimeout<T, F = 'down'>(check: Promise<T>, otherwise = 'down' as F, ms = 2000): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms)));
  try {
    return await Promise.race([check.catch(() => otherwise), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
