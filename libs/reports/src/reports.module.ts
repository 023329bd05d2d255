import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RewardsModule } from '@app/rewards';
import { WalletModule } from '@app/wallet';
import { ReportEntity } from './entities/report.entity';
import { ReportSources } from './report-sources';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

/** The API side of reports (docs/reports.md); ReportsWorkerModule builds and expires them. */
@Module({
  imports: [TypeOrmModule.forFeature([ReportEntity]), RewardsModule, WalletModule],
  controllers: [ReportsController],
  providers: [ReportsService, ReportSources],
  exports: [ReportSources],
})
export class ReportsModule {}
