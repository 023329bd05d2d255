import { Module } from '@nestjs/common';
import { RewardsModule } from '@app/rewards';
import { WalletModule } from '@app/wallet';
import { AccountOverviewController } from './account-overview.controller';

@Module({ imports: [WalletModule, RewardsModule], controllers: [AccountOverviewController] })
export class AccountOverviewModule {}
