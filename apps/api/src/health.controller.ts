import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '@app/auth';
import { RedisClient } from '@app/core';

/**
 * Liveness says the process answers; readiness says it can serve. PostgreSQL holds all state, so
 * without it the process is not ready (503). Without Redis it still serves (rate limits per
 * process, queue work picked up by the sweepers when Redis returns), so it stays ready and says
 * it is degraded: taking every instance out of a load balancer for a Redis outage would turn a
 * degraded service into none (docs/operations.md, Degraded modes).
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisClient,
  ) {}

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) response: Response) {
    const [postgres, redis] = await Promise.all([
      withTimeout(this.dataSource.query('SELECT 1').then(() => 'ok' as const)),
      // Just after start the connection may not be up yet: wait for it (within the check's time) rather than say "down".
      withTimeout(this.redis.connected.then(() => this.redis.ping()).then(() => 'ok' as const)),
    ]);
    const ready = postgres === 'ok';
    response.status(ready ? 200 : 503);
    return { status: !ready ? 'unavailable' : redis === 'ok' ? 'ok' : 'degraded', checks: { postgres, redis } };
  }
}

async function withTimeout(check: Promise<'ok'>, ms = 2000): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => (timer = setTimeout(() => resolve('down'), ms)));
  try {
    return await Promise.race([check.catch(() => 'down' as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
