import type { AppConfig } from '../config/app-config';

/**
 * The messages between the API process and the worker side running on a thread of it (`npm start`).
 * Both ends import these types from here, so a message one end sends and the other does not handle
 * is a compile error rather than a silently ignored object. Messages are structured-cloned by
 * `postMessage`: plain data only, no classes or functions. What `work` carries is the domains'
 * business (today libs/rewards' RewardWork), named by the apps that exchange it.
 */

/** What the thread is started with (`workerData`). */
export interface WorkerThreadData {
  config: AppConfig;
}

/** API process → worker thread. */
export type ToWorkerThread<Work> =
  /** Work was committed: enqueue its jobs, and fan out its events now. */
  | { type: 'work'; work: Work }
  /** Finish the jobs in progress and stop; answered with `closed`. */
  | { type: 'close' };

/** Worker thread → API process. */
export type FromWorkerThread =
  /** The worker side runs: its processors and scheduled jobs are started. */
  | { type: 'ready' }
  /** The worker side has stopped after `close`; `error` if closing failed part-way. */
  | { type: 'closed'; error?: string };

/** For the `default` branch of a `switch` over a message type: fails to compile when a type is not handled. */
export function unhandledMessage(message: never): never {
  throw new Error(`unexpected worker-thread message ${JSON.stringify(message)}`);
}
