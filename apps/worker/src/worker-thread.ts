import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { parentPort, workerData } from 'node:worker_threads';
import { type FromWorkerThread, type ToWorkerThread, unhandledMessage, type WorkerThreadData } from '@app/core';
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
  const app = await NestFactory.createApplicationContext(WorkerAppModule.register(config), { bufferLogs: true });
  app.useLogger(app.get(Logger));
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
