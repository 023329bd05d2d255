import { DynamicModule, Module } from '@nestjs/common';
import { MetricsCollectors, SERVE_METRICS } from './metrics-collectors';

/**
 * Metrics of this process. The API serves them at GET /metrics (its own controller); the worker
 * side, which has no HTTP app, serves them itself on METRICS_PORT (`forWorker`).
 */
@Module({})
export class MetricsModule {
  static forApi(): DynamicModule {
    return { module: MetricsModule, providers: [MetricsCollectors, { provide: SERVE_METRICS, useValue: false }] };
  }

  static forWorker(): DynamicModule {
    return { module: MetricsModule, providers: [MetricsCollectors, { provide: SERVE_METRICS, useValue: true }] };
  }
}
