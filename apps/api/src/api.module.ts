import { DynamicModule, Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { AuthModule } from '@app/auth';
import { CatalogModule } from '@app/catalog';
import { AppConfig, InfrastructureModule, MetricsModule } from '@app/core';
import { OAuthModule } from '@app/oauth';
import { AccountOverviewModule } from '@app/overview';
import { RedemptionModule } from '@app/redemption';
import { RewardsModule } from '@app/rewards';
import { TopupsModule } from '@app/topups';
import { WalletModule } from '@app/wallet';
import { WebhooksModule } from '@app/webhooks';
import { WorkerModule } from '../../worker/src/worker.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

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
        MetricsModule.forApi(),
        ...(config.runWorkers ? [WorkerModule] : []),
      ],
      controllers: [HealthController, MetricsController],
    };
  }
}
