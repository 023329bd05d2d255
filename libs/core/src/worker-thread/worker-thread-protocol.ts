import type { AppConfig } from '../config/app-config';

/**
 * The messages between the API process and the worker side running on a thread of it (`npm start`).
 * Both ends import these types from here, so a message one end sends and the other does not handle
 * is a compile error rather than a silently ignored object. Messages are structured-cloned by
 * `postMessage`: plain data only, no classes or functions.
 */

/** Rows whose queue jobs are due: card issuances and e-mails, by id (each job reads its row). */
export interface RewardWork {
  cardIds?: string[];
  mailJobIds?: string[];
  /** E-mails whose worker died while sending (their lease ran out), with the attempt it was at. */
  expiredMailLeases?: { id: string; attempts: number }[];
  /**
   * Set by the sweeper: these rows made no progress for a while, so a job Redis still keeps under
   * the same id may be a husk (in no list, never to run) and is replaced rather than trusted.
   */
  swept?: boolean;
}

/** What the thread is started with (`workerData`). */
export interface WorkerThreadData {
  config: AppConfig;
}

/** API process → worker thread. */
export type ToWorkerThread =
  /** Rewards were committed: enqueue their jobs, and fan out their events now. */
  | { type: 'reward-work'; work: RewardWork }
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
