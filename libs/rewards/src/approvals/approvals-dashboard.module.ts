import { Module } from '@nestjs/common';
import { RewardsModule } from '../rewards.module';
import { ApprovalsController } from './approvals.controller';

/**
 * The dashboard's approval routes (`/dashboard/api/approvals`), a module of their own so the
 * dashboard's API document (openapi.dashboard.yaml) can include them without the public rewards API.
 */
@Module({
  imports: [RewardsModule],
  controllers: [ApprovalsController],
})
export class ApprovalsDashboardModule {}
