import { Module } from '@nestjs/common';
import { WalletModule } from '@app/wallet';
import { AccountOverviewController } from './account-overview.controller';

@Module({ imports: [WalletModule], controllers: [AccountOverviewController] })
export class AccountOverviewModule {}
