import { readFileSync } from 'node:fs';
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
 * Runs lowerThisThreadPriority on a new thread of this process, as the worker thread of `npm start`
 * does, and keeps the thread alive until `stop` is called. The thread cannot load TypeScript, so it
 * gets the module compiled to CommonJS.
 */
async function onANewThread(levels: number): Promise<{ result: ThreadPriorityResult; stop: () => Promise<number> }> {
  const { outputText } = transpileModule(readFileSync(join(__dirname, 'thread-priority.ts'), 'utf8'), {
    compilerOptions: { module: ModuleKind.CommonJS, target: ScriptTarget.ES2022 },
  });
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const module = { exports: {} };
    new Function('require', 'module', 'exports', workerData.code)(require, module, module.exports);
    parentPort.postMessage(module.exports.lowerThisThreadPriority(workerData.levels));
    parentPort.once('message', () => parentPort.close());
  `;
  const worker = new Worker(source, { eval: true, workerData: { code: outputText, levels } });
  const result = await new Promise<ThreadPriorityResult>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', resolve);
  });
  return { result, stop: () => (worker.postMessage('stop'), new Promise((done) => worker.once('exit', done))) };
}

describe('lowerThisThreadPriority', () => {
  it('lowers the calling thread alone: the kernel shows the new nice value on that task, the rest of the process keeps its own', async () => {
    const mainBefore = niceOf(process.pid);
    const { result, stop } = await onANewThread(10);
    try {
      expect(result).toEqual({ lowered: true, tid: expect.any(Number), from: mainBefore, to: Math.min(19, mainBefore + 10) });
      if (!result.lowered) return;
      expect(result.tid).not.toBe(process.pid);
      expect(niceOf(result.tid)).toBe(Math.min(19, mainBefore + 10));
      expect(niceOf(process.pid)).toBe(mainBefore);
    } finally {
      await stop();
    }
  });

  it('stops at 19, the lowest priority, rather than failing', async () => {
    const { result, stop } = await onANewThread(40);
    await stop();
    expect(result).toMatchObject({ lowered: true, to: 19 });
  });

  it('changes nothing when asked for no levels', () => {
    const before = niceOf(process.pid);
    expect(lowerThisThreadPriority(0)).toEqual({ lowered: false, reason: 'WORKER_THREAD_NICE is 0' });
    expect(niceOf(process.pid)).toBe(before);
  });
});
