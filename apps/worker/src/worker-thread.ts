import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { parentPort, workerData } from 'node:worker_threads';
import { type FromWorkerThread, lowerThisThreadPriority, type ToWorkerThread, unhandledMessage, type WorkerThreadData } from '@app/core';
import { RewardJobs, type RewardWork } from '@app/rewards';
import { WebhookRelay } from '@app/webhooks';
import { WorkerAppModule } from './worker-app.module';

/**
 * The worker side (processors and scheduled jobs) on a thread of the API process: what `npm start`
 * runs beside the HTTP server, so background work never stalls the request thread. The parent has
 * already validated the configuration and migrated. The messages are those of
 * libs/core/src/worker-thread/worker-thread-protocol.ts.
 */
async function main(): Promise<void> {
  const port = parentPort!;
  const { config } = workerData as WorkerThreadData;
  const send = (message: FromWorkerThread) => port.postMessage(message);
  // WORKER_THREAD_NICE > 0: when this thread's jobs and the request thread both want the CPU, the
  // scheduler favours the requests (docs/operations.md, Processes; off by default).
  const priority = lowerThisThreadPriority(config.workerThreadNice);
  const app = await NestFactory.createApplicationContext(WorkerAppModule.register(config), { bufferLogs: true });
  const logger = app.get(Logger);
  app.useLogger(logger);
  if (priority.lowered) logger.log(`worker thread runs below the request thread: task ${priority.tid}, nice ${priority.from} → ${priority.to}`, 'WorkerThread');
  else if (config.workerThreadNice > 0) logger.warn(`worker thread priority left as the process has it: ${priority.reason}`, 'WorkerThread');
  await app.init();
  const jobs = app.get(RewardJobs);
  const relay = app.get(WebhookRelay);
  port.on('message', (message: ToWorkerThread<RewardWork>) => {
    switch (message.type) {
      case 'work':
        // New rewards were committed, and with them their events: fan them out now.
        relay.wake();
        void jobs.enqueue(message.work);
        return;
      case 'close':
        app.close().then(
          () => send({ type: 'closed' }),
          (error: unknown) => send({ type: 'closed', error: (error as Error).message }),
        );
        return;
      default:
        unhandledMessage(message);
    }
  });
  send({ type: 'ready' });
}

main().catch((error: unknown) => {
  // Reaches the parent as the thread's 'error' event.
  throw error;
});
