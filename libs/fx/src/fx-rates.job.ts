import { Injectable, OnModuleInit } from '@nestjs/common';
import { Sweepers } from '@app/core';
import { FX_RATES_REFRESH_MS, FxRates } from './fx-rates.service';

export const FX_RATES_REFRESH = 'fx-rates-refresh';

/**
 * Keeps the stored exchange rates fresh, registered with the worker's Sweepers (docs/operations.md,
 * Background work); every worker runs it (a refresh never overwrites a later one).
 */
@Injectable()
export class FxRatesRefreshJob implements OnModuleInit {
  constructor(
    private readonly rates: FxRates,
    private readonly sweepers: Sweepers,
  ) {}

  onModuleInit(): void {
    this.sweepers.register({ name: FX_RATES_REFRESH, everyMs: FX_RATES_REFRESH_MS, run: () => this.run() });
  }

  async run(): Promise<void> {
    await this.rates.refreshLogged('scheduled');
  }
}
