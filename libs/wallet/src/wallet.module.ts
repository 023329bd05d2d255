import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '@app/catalog';
import { WalletReports } from './wallet-reports';
import { Currencies } from './currencies';
import { WalletTransactionEntity } from './entities/wallet-transaction.entity';
import { WalletEntity } from './entities/wallet.entity';
import { AlertSettingsController } from './low-balance-alerts.controller';
import { LowBalanceAlerts } from './low-balance-alerts.service';
import { WalletController, WalletsController } from './wallet.controller';
import { WalletLedger } from './wallet-ledger.service';
import { WalletMetrics } from './wallet-metrics';

@Module({
  imports: [TypeOrmModule.forFeature([WalletEntity, WalletTransactionEntity]), CatalogModule],
  controllers: [WalletController, WalletsController, AlertSettingsController],
  providers: [WalletLedger, WalletMetrics, Currencies, LowBalanceAlerts, WalletReports],
  exports: [WalletLedger, Currencies, WalletReports],
})
export class WalletModule {}
