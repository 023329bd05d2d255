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
 * task only. Lowering needs no privilege. Whenever that cannot be done safely (no /proc/thread-self, a
 * /proc of another PID namespace, a failing call, a thread already at 19) nothing changes and the reason
 * is returned: raising the whole process's nice value instead would slow the requests too.
 *
 * `npm start` calls it on its worker thread with WORKER_THREAD_NICE (off by default), so that when the
 * request thread and the background work both want the CPU, the requests get most of it (docs/operations.md,
 * Processes).
 */
export function lowerThisThreadPriority(levels: number): ThreadPriorityResult {
  if (levels <= 0) return { lowered: false, reason: 'WORKER_THREAD_NICE is 0' };
  let link: string;
  try {
    // Read on the calling thread itself: a synchronous call does not go through libuv's pool.
    link = readlinkSync('/proc/thread-self');
  } catch {
    return { lowered: false, reason: 'this system has no /proc/thread-self, so a thread cannot be told from its process' };
  }
  // "<process id>/task/<thread id>", as seen by whoever mounted /proc. Where that is another PID namespace
  // than this process's, the ids would name other tasks: leave the priority alone.
  const match = /^(\d+)\/task\/(\d+)$/.exec(link);
  if (!match || Number(match[1]) !== process.pid) {
    return { lowered: false, reason: `/proc/thread-self (${link}) does not name a thread of this process (${process.pid})` };
  }
  const tid = Number(match[2]);
  try {
    const from = getPriority(tid);
    const to = Math.min(19, from + levels);
    if (to === from) return { lowered: false, reason: `the thread already runs at the lowest priority (nice ${from})` };
    setPriority(tid, to);
    return { lowered: true, tid, from, to };
  } catch (error) {
    return { lowered: false, reason: (error as Error).message };
  }
}
