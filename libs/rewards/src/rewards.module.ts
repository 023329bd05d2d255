import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '@app/catalog';
import { CARD_ISSUANCE_QUEUE, MAIL_QUEUE } from '@app/core';
import { WalletModule } from '@app/wallet';
import { MailJobEntity } from './entities/mail-job.entity';
import { RedemptionLinkEntity } from './entities/redemption-link.entity';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEventEntity } from './entities/reward-event.entity';
import { RewardEntity } from './entities/reward.entity';
import { RewardCatalog } from './reward-catalog';
import { RewardJobs } from './reward-jobs';
import { RewardSender } from './reward-sender.service';
import { RewardDrafts } from './reward-drafts';
import { SendStatements } from './send-statements';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';
import { RewardTimeline } from './lifecycle/reward-timeline';
import { RewardsController } from './rewards.controller';
import { RewardsService } from './rewards.service';

/** The API side of rewards: endpoints, and producers for the queues RewardsWorkerModule consumes. */
@Module({
  imports: [
    TypeOrmModule.forFeature([RewardEntity, RewardCardEntity, RewardEventEntity, RedemptionLinkEntity, MailJobEntity]),
    BullModule.registerQueue({ name: CARD_ISSUANCE_QUEUE }, { name: MAIL_QUEUE }),
    WalletModule,
    CatalogModule,
  ],
  controllers: [RewardsController],
  providers: [RewardSender, RewardsService, RewardCatalog, RewardDrafts, SendStatements, RewardRepository, RewardTimeline, RewardLifecycle, RewardJobs],
  exports: [RewardsService, RewardLifecycle, RewardJobs, RewardCatalog, WalletModule, CatalogModule],
})
export class RewardsModule {}
