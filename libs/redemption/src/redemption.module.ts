import { Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { RewardsModule } from '@app/rewards';
import { RedemptionController } from './redemption.controller';
import { RedemptionService } from './redemption.service';

/** The recipient's redemption page and its JSON API at `/r/{token}`. */
@Module({
  imports: [RewardsModule, AccountModule],
  controllers: [RedemptionController],
  providers: [RedemptionService],
})
export class RedemptionModule {}
