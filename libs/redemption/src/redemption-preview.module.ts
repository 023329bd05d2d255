import { Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { RewardsModule } from '@app/rewards';
import { RedemptionPreviewController } from './redemption-preview.controller';
import { RedemptionService } from './redemption.service';

/**
 * The dashboard's preview of a recipient page (`/dashboard/api/rewards/{id}/recipient-preview`), a
 * module of its own so the dashboard's API document can include it without the recipient's routes.
 */
@Module({
  imports: [RewardsModule, AccountModule],
  controllers: [RedemptionPreviewController],
  providers: [RedemptionService],
})
export class RedemptionPreviewModule {}
