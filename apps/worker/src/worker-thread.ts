import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { parentPort, workerData } from 'node:worker_threads';
import type { AppConfig } from '@app/core';
import { RewardJobs, RewardWork } from '@app/rewards';
import { WebhookRelay } from '@app/webhooks';
import { WorkerAppModule } from './worker-app.module';

/**
 * The worker side (processors and scheduled jobs) on a thread of the API process: what `npm start`
 * runs beside the HTTP server, so background work never stalls the request thread. The parent has
 * already validated the configuration and migrated; it hands over reward jobs to enqueue
 * (`{ rewardJobs }`), sends `close` on shutdown and waits for `closed` (Bull lets the jobs in
 * progress finish first).
 */
async function main(): Promise<void> {
  const port = parentPort!;
  const config = (workerData as { config: AppConfig }).config;
  const app = await NestFactory.createApplicationContext(WorkerAppModule.register(config), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  await app.init();
  const jobs = app.get(RewardJobs);
  const relay = app.get(WebhookRelay);
  port.on('message', (message: unknown) => {
    const work = (message as { rewardJobs?: RewardWork } | null)?.rewardJobs;
    if (work) {
      // New rewards were committed, and with them their events: fan them out now.
      relay.wake();
      void jobs.enqueue(work);
      return;
    }
    if (message !== 'close') return;
    app.close().then(
      () => port.postMessage({ closed: true }),
      (error: unknown) => port.postMessage({ closed: true, error: (error as Error).message }),
    );
  });
  port.postMessage({ ready: true });
}

main().catch((error: unknown) => {
  // Reaches the parent as the thread's 'error' event.
  throw error;
});
