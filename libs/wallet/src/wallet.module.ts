import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '@app/catalog';
import { AuditModule } from '@app/audit';
import { Currencies } from './currencies';
import { WalletTransactionEntity } from './entities/wallet-transaction.entity';
import { WalletEntity } from './entities/wallet.entity';
import { AlertSettingsController } from './low-balance-alerts.controller';
import { LowBalanceAlerts } from './low-balance-alerts.service';
import { WalletController, WalletsController } from './wallet.controller';
import { WalletLedger } from './wallet-ledger.service';
import { WalletMetrics } from './wallet-metrics';

@Module({
  imports: [TypeOrmModule.forFeature([WalletEntity, WalletTransactionEntity]), CatalogModule, AuditModule],
  controllers: [WalletController, WalletsController, AlertSettingsController],
  providers: [WalletLedger, WalletMetrics, Currencies, LowBalanceAlerts],
  exports: [WalletLedger, Currencies],
})
export class WalletModule {}
