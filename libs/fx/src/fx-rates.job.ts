import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { FX_RATES_REFRESH_MS, FxRates } from './fx-rates.service';

/** Keeps the stored exchange rates fresh; every worker runs it (a refresh never overwrites a later one). */
@Injectable()
export class FxRatesRefreshJob {
  constructor(private readonly rates: FxRates) {}

  @Interval('fx-rates-refresh', FX_RATES_REFRESH_MS)
  async run(): Promise<void> {
    await this.rates.refreshLogged('scheduled');
  }
}
