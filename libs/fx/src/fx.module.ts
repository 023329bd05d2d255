import { Module } from '@nestjs/common';
import { AuditModule } from '@app/audit';
import { APP_CONFIG, AppConfig, Clock } from '@app/core';
import { WalletModule } from '@app/wallet';
import { FxController } from './fx.controller';
import { FxRates } from './fx-rates.service';
import { FxService } from './fx.service';
import { FX_RATES_SOURCE, FxRatesSource } from './rates/rates-source.port';
import { SandboxRatesSource } from './rates/sandbox-rates';
import { TangoRatesSource } from './rates/tango-rates';

function ratesSourceFor(config: AppConfig, clock: Clock): FxRatesSource {
  switch (config.fxRates) {
    case 'sandbox':
      return new SandboxRatesSource();
    case 'tango':
      // config.tango is set whenever fxRates is tango (loadConfig refuses to start otherwise).
      return new TangoRatesSource({ ...config.tango!, timeoutMs: config.supplierTimeoutMs }, clock);
  }
}

/**
 * Exchange rates, quotes and conversions between an account's wallets (docs/currencies.md). Its own
 * lib above wallet: it owns its tables and a rate source adapter, and moves money only through
 * WalletLedger.convert.
 */
@Module({
  imports: [WalletModule, AuditModule],
  controllers: [FxController],
  providers: [FxRates, FxService, { provide: FX_RATES_SOURCE, inject: [APP_CONFIG, Clock], useFactory: ratesSourceFor }],
  exports: [FxRates, FxService],
})
export class FxModule {}
