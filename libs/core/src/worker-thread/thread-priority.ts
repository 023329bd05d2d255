import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** What lowering the calling thread's priority did, for the start-up log. */
export type ThreadPriorityResult =
  | { lowered: true; tid: number; from: number; to: number }
  | { lowered: false; reason: string };

/**
 * Lowers the priority of the calling thread, and of that thread alone, by `levels` nice levels
 * (capped at 19, the lowest). On Linux each thread is a task with its own nice value: the thread
 * learns its task id from /proc/thread-self and passes it to setpriority(2), which then changes that
 * task only. Lowering needs no privilege. Elsewhere (no /proc/thread-self) nothing changes and the
 * reason is returned, since raising the whole process's nice value would slow the requests too.
 *
 * `npm start` calls it on its worker thread, so that when the request thread and the background work
 * both want the CPU, requests come first (docs/operations.md, Processes).
 */
export function lowerThisThreadPriority(levels: number): ThreadPriorityResult {
  if (levels <= 0) return { lowered: false, reason: 'WORKER_THREAD_NICE is 0' };
  let tid: number;
  try {
    // Read on the calling thread itself: a synchronous call does not go through libuv's pool.
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return { lowered: false, reason: 'this system has no /proc/thread-self, so a thread cannot be told from its process' };
  }
  if (!Number.isInteger(tid) || tid <= 0) return { lowered: false, reason: 'no thread id in /proc/thread-self' };
  const from = getPriority(tid);
  const to = Math.min(19, from + levels);
  try {
    setPriority(tid, to);
  } catch (error) {
    return { lowered: false, reason: (error as Error).message };
  }
  return { lowered: true, tid, from, to };
}
