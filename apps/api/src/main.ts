import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { closeOnSignals, runProcess } from '@app/core';
import { ApiModule } from './api.module';
import { API_APP_OPTIONS, configureApp } from './configure-app';
import { startWorkerThread, WorkerThread } from './worker-thread-host';

void runProcess(async (config, { envFile }) => {
  // RUN_WORKERS=true: the processors and the scheduler run in this process too, on a thread of their
  // own, so mail rendering, issuance, the outbox relay and deliveries never stall a request. The
  // thread starts first, so the API is composed with jobs handed to it from its first request.
  let fatal = (error: Error) => {
    process.stderr.write(`the worker thread stopped: ${error.message}\n`);
    process.exit(1);
  };
  const workers: WorkerThread | null = config.runWorkers ? await startWorkerThread(config, (error) => fatal(error)) : null;
  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      ApiModule.register(config, { rewardJobs: workers?.rewardJobs }),
      API_APP_OPTIONS,
    );
  } catch (error) {
    await workers?.close();
    throw error;
  }
  configureApp(app);
  const logger = app.get(Logger);
  fatal = (error) => {
    logger.error({ err: error }, 'the worker thread stopped; exiting so the service can be restarted', 'Main');
    process.exit(1);
  };
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
  const settings = envFile ? `settings from ${envFile} and the environment` : 'settings from the environment (no .env)';
  logger.log(
    `API listening on ${config.publicBaseUrl}: the dashboard at ${config.publicBaseUrl}/dashboard, the API reference at ` +
      `${config.publicBaseUrl}/docs (workers ${workers ? 'on a worker thread' : 'off'}; ${settings})`,
    'Main',
  );
});
