import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '@app/account';
import { CatalogModule } from '@app/catalog';
import { AuditModule } from '@app/audit';
import { WalletReports } from './wallet-reports';
import { Currencies } from './currencies';
import { WalletTransactionEntity } from './entities/wallet-transaction.entity';
import { WalletEntity } from './entities/wallet.entity';
import { AlertSettingsController } from './low-balance-alerts.controller';
import { LowBalanceAlerts } from './low-balance-alerts.service';
import { StatementsController } from './statements/statements.controller';
import { WalletStatements } from './statements/wallet-statements.service';
import { WalletController, WalletsController } from './wallet.controller';
import { WalletLedger } from './wallet-ledger.service';
import { WalletMetrics } from './wallet-metrics';

@Module({
  imports: [TypeOrmModule.forFeature([WalletEntity, WalletTransactionEntity]), CatalogModule, AccountModule, AuditModule],
  controllers: [WalletController, WalletsController, AlertSettingsController, StatementsController],
  providers: [WalletLedger, WalletMetrics, Currencies, LowBalanceAlerts, WalletStatements, WalletReports],
  exports: [WalletLedger, Currencies, WalletStatements, WalletReports],
})
export class WalletModule {}
