import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { closeOnSignals, runProcess } from '@app/core';
import { WorkerAppModule } from './worker-app.module';

/** Processors and scheduled jobs only; serves no HTTP. */
void runProcess(async (config) => {
  const app = await NestFactory.createApplicationContext(WorkerAppModule.register(config), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  // On SIGTERM the queues close, which waits for the jobs in progress to finish.
  closeOnSignals(app);
  await app.init();
  app.get(Logger).log(`Worker started (queue prefix ${config.queuePrefix})`, 'Main');
});
