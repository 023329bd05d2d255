import { DynamicModule, Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { AuthModule } from '@app/auth';
import { CatalogModule } from '@app/catalog';
import { DashboardModule } from '@app/dashboard';
import { AppConfig, InfrastructureModule } from '@app/core';
import { OAuthModule } from '@app/oauth';
import { AccountOverviewModule } from '@app/overview';
import { RedemptionModule } from '@app/redemption';
import { RewardsModule } from '@app/rewards';
import { TopupsModule } from '@app/topups';
import { WalletModule } from '@app/wallet';
import { WebhooksModule } from '@app/webhooks';
import { WorkerModule } from '../../worker/src/worker.module';
import { HealthController } from './health.controller';

/** The HTTP API; with RUN_WORKERS=true the same process also runs the worker side. */
@Module({})
export class ApiModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        InfrastructureModule.forRoot(config),
        AuthModule,
        AccountModule,
        WalletModule,
        TopupsModule,
        AccountOverviewModule,
        CatalogModule,
        RewardsModule,
        RedemptionModule,
        WebhooksModule,
        OAuthModule,
        DashboardModule,
        ...(config.runWorkers ? [WorkerModule] : []),
      ],
      controllers: [HealthController],
    };
  }
}
