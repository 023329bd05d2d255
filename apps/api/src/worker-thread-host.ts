import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AppConfig } from '@app/core';

export interface WorkerThread {
  /** Sends a message to the worker side (see apps/worker/src/worker-thread.ts). */
  post(message: unknown): void;
  /** Asks the worker side to finish its jobs in progress and stop; resolves when it has. */
  close(): Promise<void>;
}

/**
 * Starts the worker side on its own thread of this process (RUN_WORKERS=true) and resolves once it
 * runs. If the thread dies later, the process exits 1: a service that silently stopped issuing
 * cards, sending e-mail or delivering webhooks is worse than one a supervisor restarts.
 */
export function startWorkerThread(config: AppConfig, onFatal: (error: Error) => void): Promise<WorkerThread> {
  const worker = new Worker(join(__dirname, '../../worker/src/worker-thread.js'), { workerData: { config } });
  let closing = false;
  return new Promise((resolve, reject) => {
    let ready = false;
    const fail = (error: Error) => {
      if (!ready) reject(error);
      else if (!closing) onFatal(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the worker thread exited (code ${code})`)));
    worker.on('message', (message: { ready?: boolean }) => {
      if (!message?.ready || ready) return;
      ready = true;
      resolve({
        post: (message) => worker.postMessage(message),
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            worker.once('exit', () => done());
            worker.on('message', (reply: { closed?: boolean }) => {
              if (reply?.closed) void worker.terminate();
            });
            worker.postMessage('close');
          }),
      });
    });
  });
}
