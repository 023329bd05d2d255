import { Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { CatalogModule } from '@app/catalog';
import { FxModule } from '@app/fx';
import { WalletModule } from '@app/wallet';
import { MailJobEntity } from './entities/mail-job.entity';
import { RedemptionLinkEntity } from './entities/redemption-link.entity';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEventEntity } from './entities/reward-event.entity';
import { RewardEntity } from './entities/reward.entity';
import { RewardCatalog } from './reward-catalog';
import { RewardSender } from './reward-sender.service';
import { RewardDrafts } from './reward-drafts';
import { SendStatements } from './send-statements';
import { SendControls } from './send-controls';
import { IssuanceLease } from './lifecycle/issuance-lease';
import { MailJobRepository } from './lifecycle/mail-job.repository';
import { MailLease } from './lifecycle/mail-lease';
import { RewardLifecycle, rewardLockTimeoutProvider } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';
import { RewardTimeline } from './lifecycle/reward-timeline';
import { RewardsController } from './rewards.controller';
import { ApprovalSettingsController } from './approvals/approvals.controller';
import { Approvals } from './approvals/approvals.service';
import { RewardsService } from './rewards.service';
import { RewardReports } from './reward-reports';
import { ReminderSettingsController } from './reminders/reminder-settings.controller';
import { RewardReminders } from './reminders/reward-reminders.service';

/**
 * The API side of rewards: endpoints and sending. The jobs of what it commits go to RewardJobs,
 * which the composing app binds (RewardJobsModule); RewardsWorkerModule consumes them.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([RewardEntity, RewardCardEntity, RewardEventEntity, RedemptionLinkEntity, MailJobEntity]),
    WalletModule,
    FxModule,
    CatalogModule,
    AuditModule,
    AccountModule,
  ],
  controllers: [RewardsController, ApprovalSettingsController, ReminderSettingsController],
  providers: [
    RewardSender,
    RewardsService,
    RewardCatalog,
    RewardDrafts,
    SendStatements,
    SendControls,
    Approvals,
    RewardRepository,
    MailJobRepository,
    RewardTimeline,
    RewardLifecycle,
    rewardLockTimeoutProvider,
    IssuanceLease,
    MailLease,
    RewardReports,
    RewardReminders,
  ],
  // The leases and repositories are for the worker side (RewardsWorkerModule); libs/rewards' index does not export them.
  exports: [Approvals, RewardsService, RewardReports, RewardReminders, RewardLifecycle, RewardCatalog, IssuanceLease, MailLease, RewardRepository, MailJobRepository, WalletModule, CatalogModule],
})
export class RewardsModule {}
