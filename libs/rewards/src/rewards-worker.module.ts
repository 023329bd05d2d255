import { Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { SweepersModule } from '@app/core';
import { MailModule } from '@app/mail';
import { CardIssuanceService } from './card-issuance.service';
import { RewardBackgroundJobs } from './reward-background.jobs';
import { RewardMailService } from './reward-mail.service';
import { CardIssuanceProcessor, RewardMailProcessor } from './reward.processors';
import { RewardsModule } from './rewards.module';

/** Queue processors and sweeps (on the worker's Sweepers) of rewards; only the worker side imports this. */
@Module({
  imports: [RewardsModule, AccountModule, MailModule, SweepersModule],
  providers: [CardIssuanceService, RewardMailService, CardIssuanceProcessor, RewardMailProcessor, RewardBackgroundJobs],
  exports: [CardIssuanceService, RewardBackgroundJobs, RewardMailService],
})
export class RewardsWorkerModule {}
