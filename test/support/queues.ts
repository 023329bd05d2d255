import { getQueueToken } from '@nestjs/bull';
import type { INestApplicationContext } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { eventually } from './processes';

/**
 * A retry that waits out its backoff in a Bull queue (a delayed job: Bull's timer, on the wall clock)
 * made due now, instead of the test sleeping through the backoff (docs/testing.md, "Waiting for
 * something else"). Waits until the queue of `app` holds a delayed job that `matches`, then promotes
 * it; the job then runs as it would have once its time came. Answers the job.
 */
export async function promoteDelayedJob(
  app: INestApplicationContext,
  queueName: string,
  matches: (job: Job) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<Job> {
  const queue = app.get<Queue>(getQueueToken(queueName), { strict: false });
  const job = await eventually(async () => (await queue.getDelayed()).find(matches), timeoutMs, 50);
  await job.promote().catch(async (error: unknown) => {
    // Its time may have come meanwhile: then Bull has moved it on itself.
    if ((await job.getState()) === 'delayed') throw error;
  });
  return job;
}
