import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ModuleKind, ScriptTarget, transpileModule } from 'typescript';
import { lowerThisThreadPriority, type ThreadPriorityResult } from './thread-priority';

/** The nice value of one task of this process, as the kernel's scheduler sees it (/proc/<pid>/task/<tid>/stat, field 19). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * Runs lowerThisThreadPriority on a new thread of this process, once per entry of `calls`, as the worker
 * thread of `npm start` does, and keeps the thread alive until `stop` is called. The thread cannot load
 * TypeScript, so it gets the module compiled to CommonJS.
 */
async function onANewThread(calls: number[]): Promise<{ results: ThreadPriorityResult[]; stop: () => Promise<number> }> {
  const { outputText } = transpileModule(readFileSync(join(__dirname, 'thread-priority.ts'), 'utf8'), {
    compilerOptions: { module: ModuleKind.CommonJS, target: ScriptTarget.ES2022 },
  });
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const module = { exports: {} };
    new Function('require', 'module', 'exports', workerData.code)(require, module, module.exports);
    parentPort.postMessage(workerData.calls.map((levels) => module.exports.lowerThisThreadPriority(levels)));
    parentPort.once('message', () => parentPort.close());
  `;
  const worker = new Worker(source, { eval: true, workerData: { code: outputText, calls } });
  const results = await new Promise<ThreadPriorityResult[]>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', resolve);
  });
  return { results, stop: () => (worker.postMessage('stop'), new Promise((done) => worker.once('exit', done))) };
}

// Threads have nice values of their own on Linux only; elsewhere the function changes nothing by design.
const linux = existsSync('/proc/thread-self');

describe('lowerThisThreadPriority', () => {
  (linux ? it : it.skip)('lowers the calling thread alone: the kernel shows the new nice value on that task, every other task of the process keeps its own', async () => {
    const before = new Map(readdirSync(`/proc/${process.pid}/task`).map((tid) => [Number(tid), niceOf(Number(tid))]));
    const mainBefore = niceOf(process.pid);
    const { results, stop } = await onANewThread([10]);
    try {
      const [result] = results;
      expect(result).toEqual({ lowered: true, tid: expect.any(Number), from: mainBefore, to: Math.min(19, mainBefore + 10) });
      if (!result.lowered) return;
      expect(before.has(result.tid)).toBe(false);
      expect(niceOf(result.tid)).toBe(Math.min(19, mainBefore + 10));
      for (const [tid, nice] of before) if (existsSync(`/proc/${process.pid}/task/${tid}`)) expect([tid, niceOf(tid)]).toEqual([tid, nice]);
    } finally {
      await stop();
    }
  });

  (linux ? it : it.skip)('stops at 19, the lowest priority, and says so instead of claiming to lower a thread already there', async () => {
    const { results, stop } = await onANewThread([40, 5]);
    await stop();
    expect(results[0]).toMatchObject({ lowered: true, to: 19 });
    expect(results[1]).toEqual({ lowered: false, reason: 'the thread already runs at the lowest priority (nice 19)' });
  });

  it('changes nothing when asked for no levels', async () => {
    const { results, stop } = await onANewThread([0]);
    await stop();
    expect(results).toEqual([{ lowered: false, reason: 'WORKER_THREAD_NICE is 0' }]);
    expect(lowerThisThreadPriority(0)).toEqual({ lowered: false, reason: 'WORKER_THREAD_NICE is 0' });
  });
});
