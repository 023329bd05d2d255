import { Module } from '@nestjs/common';
import { SweepersModule } from '@app/core';
import { ReportBuilder } from './report-builder';
import { ReportsModule } from './reports.module';

/** Builds and expires reports (docs/reports.md); imported by the worker side only (apps/worker WorkerModule). */
@Module({
  imports: [ReportsModule, SweepersModule],
  providers: [ReportBuilder],
  exports: [ReportBuilder],
})
export class ReportsWorkerModule {}
