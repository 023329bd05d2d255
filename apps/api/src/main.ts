import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { closeOnSignals, runProcess } from '@app/core';
import { RewardJobs } from '@app/rewards';
import { ApiModule } from './api.module';
import { API_APP_OPTIONS, configureApp } from './configure-app';
import { startWorkerThread } from './worker-thread-host';

void runProcess(async (config) => {
  // RUN_WORKERS=true: the processors and the scheduler run in this process too, on a thread of their
  // own, so mail rendering, issuance, the outbox relay and deliveries never stall a request.
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register({ ...config, runWorkers: false }), API_APP_OPTIONS);
  configureApp(app);
  const logger = app.get(Logger);
  const workers = config.runWorkers
    ? await startWorkerThread(config, (error) => {
        logger.error({ err: error }, 'the worker thread stopped; exiting so the service can be restarted', 'Main');
        process.exit(1);
      })
    : null;
  // Queue jobs of new rewards are enqueued by the worker thread, not on the request thread.
  if (workers) app.get(RewardJobs).handOffTo((work) => workers.post({ rewardJobs: work }));
  closeOnSignals({
    close: async () => {
      try {
        await app.close();
      } finally {
        await workers?.close();
      }
    },
  });
  await app.listen(config.port);
  logger.log(`API listening on ${config.publicBaseUrl} (docs at /docs; workers ${workers ? 'on a worker thread' : 'off'})`, 'Main');
});
