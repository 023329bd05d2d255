import { DynamicModule, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AccountModule } from '@app/account';
import { AuditModule } from '@app/audit';
import { AuthModule, ReadYourWrites } from '@app/auth';
import { CatalogModule } from '@app/catalog';
import { DashboardModule } from '@app/dashboard';
import { FxModule } from '@app/fx';
import { AppConfig, InfrastructureModule, MetricsModule } from '@app/core';
import { OAuthModule } from '@app/oauth';
import { AccountOverviewModule } from '@app/overview';
import { RedemptionModule, RedemptionPreviewModule } from '@app/redemption';
import { ReportsModule } from '@app/reports';
import { ApprovalsDashboardModule, RewardJobs, RewardJobsModule, RewardsModule } from '@app/rewards';
import { TopupsModule } from '@app/topups';
import { WalletModule } from '@app/wallet';
import { WebhooksModule } from '@app/webhooks';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

export interface ApiModuleOptions {
  /**
   * Where the queue jobs of new rewards go: by default they are enqueued in Bull from this process;
   * `npm start` passes a poster to its worker thread (apps/api/src/worker-thread-host.ts).
   */
  rewardJobs?: RewardJobs;
}

/**
 * The HTTP API and only that: no processors, no scheduled jobs. The worker side is composed apart
 * (the worker app), whether it runs on a thread of this process, in a process of its own or in a test.
 */
@Module({})
export class ApiModule {
  static register(config: AppConfig, options: ApiModuleOptions = {}): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        InfrastructureModule.forRoot(config),
        options.rewardJobs ? RewardJobsModule.forwardTo(options.rewardJobs) : RewardJobsModule.enqueueHere(),
        AuthModule,
        AccountModule,
        WalletModule,
        TopupsModule,
        FxModule,
        AccountOverviewModule,
        CatalogModule,
        RewardsModule,
        RedemptionModule,
        ReportsModule,
        WebhooksModule,
        OAuthModule,
        AuditModule,
        DashboardModule,
        ApprovalsDashboardModule,
        RedemptionPreviewModule,
        MetricsModule.forApi(),
      ],
      controllers: [HealthController, MetricsController],
      // Read-your-writes for the read replica's reads (docs/scaling.md, Read replica); no cost without a replica.
      providers: config.databaseReadUrl ? [{ provide: APP_INTERCEPTOR, useClass: ReadYourWrites }] : [],
    };
  }
}
