import { Logger } from '@nestjs/common';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type AppConfig, type FromWorkerThread, type ToWorkerThread, unhandledMessage, type WorkerThreadData } from '@app/core';
import { RewardJobs, type RewardWork } from '@app/rewards';

/**
 * The worker app's thread entry, as built next to this file. It is started by path, never imported:
 * the API composes nothing of the worker side, and the messages both ends exchange are typed in
 * libs/core (worker-thread-protocol.ts).
 */
const THREAD_ENTRY = join(__dirname, '..', '..', 'worker', 'src', 'worker-thread.js');

/**
 * The worker thread's old generation, in MB (docs/operations.md, Processes). Below V8's 2 GB
 * default, V8 lets the heap grow by at most about 1.6 times between full collections instead of 4
 * times; a report build of a million rows then holds tens of megabytes of waiting garbage rather than
 * over a hundred. What the thread keeps alive is tens of megabytes.
 */
export const WORKER_THREAD_OLD_GENERATION_MB = 1024;

export interface WorkerThread {
  /** RewardJobs for the API module: hands the work to the thread, which enqueues it. */
  readonly rewardJobs: RewardJobs;
  /** Asks the worker side to finish its jobs in progress and stop; resolves when it has. */
  close(): Promise<void>;
}

/** Posts reward work to the thread; the request thread spends no Redis round trip on it. */
class WorkerThreadRewardJobs extends RewardJobs {
  private readonly logger = new Logger(RewardJobs.name);

  constructor(private readonly post: (message: ToWorkerThread<RewardWork>) => void) {
    super();
  }

  override async enqueue(work: RewardWork): Promise<void> {
    try {
      this.post({ type: 'work', work });
    } catch (error) {
      // Nothing is lost: the rows stay PENDING and the worker side's sweeper enqueues them.
      this.logger.warn({ err: error, work }, 'handing jobs to the worker thread failed; the sweeper will pick the work up');
    }
  }
}

/**
 * Starts the worker side on its own thread of this process (RUN_WORKERS=true) and resolves once it
 * runs. If the thread dies later, `onFatal` is called: a service that silently stopped issuing
 * cards, sending e-mail or delivering webhooks is worse than one a supervisor restarts.
 */
export async function startWorkerThread(config: AppConfig, onFatal: (error: Error) => void): Promise<WorkerThread> {
  // A new thread inherits the nice value of the thread that creates it, and libuv creates its pool (file
  // access, DNS, password hashing for every thread of the process) on first use. With WORKER_THREAD_NICE the
  // pool must not be created by the lowered worker thread: use it once here first, from this thread.
  if (config.workerThreadNice > 0) await access(__filename);
  const data: WorkerThreadData = { config };
  const worker = new Worker(THREAD_ENTRY, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: WORKER_THREAD_OLD_GENERATION_MB } });
  const post = (message: ToWorkerThread<RewardWork>) => worker.postMessage(message);
  let ready = false;
  let closing = false;
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      if (!ready) reject(error);
      else if (!closing) onFatal(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the worker thread exited (code ${code})`)));
    worker.on('message', (message: FromWorkerThread) => {
      switch (message.type) {
        case 'ready':
          if (ready) return;
          ready = true;
          resolve({
            rewardJobs: new WorkerThreadRewardJobs(post),
            close: () =>
              new Promise<void>((done) => {
                closing = true;
                worker.once('exit', () => done());
                post({ type: 'close' });
              }),
          });
          return;
        case 'closed':
          // The worker side has stopped (or failed to, and has nothing left to finish): end the thread.
          if (message.error) new Logger('WorkerThread').error(`the worker side did not close cleanly: ${message.error}`);
          void worker.terminate();
          return;
        default:
          unhandledMessage(message);
      }
    });
  });
}
