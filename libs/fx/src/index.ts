// What other modules may use (docs/architecture.md, Table ownership).
export * from './fx.module';
export * from './fx-worker.module';
export * from './fx-rates.service';
export * from './fx.service';
export * from './rates/rate-math';
export * from './rates/rates-source.port';
export { SANDBOX_RATES } from './rates/sandbox-rates';
export { TangoRatesSource, TANGO_RATE_MAX_AGE_MS } from './rates/tango-rates';
export type { TangoExchangeRate, TangoExchangeRateResponse } from './rates/tango-rates-wire';
