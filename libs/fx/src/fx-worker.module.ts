import { Module } from '@nestjs/common';
import { SweepersModule } from '@app/core';
import { FxRatesRefreshJob } from './fx-rates.job';
import { FxModule } from './fx.module';

/** The exchange rates' scheduled refresh; imported by the worker side only (apps/worker WorkerModule). */
@Module({
  imports: [FxModule, SweepersModule],
  providers: [FxRatesRefreshJob],
})
export class FxWorkerModule {}
