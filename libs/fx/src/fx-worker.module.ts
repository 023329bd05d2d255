import { Module } from '@nestjs/common';
import { FxRatesRefreshJob } from './fx-rates.job';
import { FxModule } from './fx.module';

/** The exchange rates' scheduled refresh; imported by the worker side only (apps/worker WorkerModule). */
@Module({
  imports: [FxModule],
  providers: [FxRatesRefreshJob],
})
export class FxWorkerModule {}
