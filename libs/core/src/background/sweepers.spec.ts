import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Sweepers } from './sweepers';

describe('the sweep registry', () => {
  let sweepers: Sweepers;
  let schedule: SchedulerRegistry;

  beforeEach(() => {
    jest.useFakeTimers();
    schedule = new SchedulerRegistry();
    sweepers = new Sweepers(schedule);
  });
  afterEach(async () => {
    await sweepers.onModuleDestroy();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('runs each sweep at its own interval once the application has started, and not before', async () => {
    const runs: string[] = [];
    sweepers.register({ name: 'a', everyMs: 1_000, run: async () => void runs.push('a') });
    sweepers.register({ name: 'b', everyMs: 3_000, run: async () => void runs.push('b') });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toEqual([]);
    sweepers.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(3_000);
    expect(runs.filter((r) => r === 'a')).toHaveLength(3);
    expect(runs.filter((r) => r === 'b')).toHaveLength(1);
    // Registered after the start: scheduled at once.
    sweepers.register({ name: 'c', everyMs: 500, run: async () => void runs.push('c') });
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs.filter((r) => r === 'c')).toHaveLength(2);
  });

  it("keeps its timers in @nestjs/schedule's registry while running, and removes them when stopped", async () => {
    const runs: string[] = [];
    sweepers.register({ name: 'a', everyMs: 1_000, run: async () => void runs.push('a') });
    expect(schedule.getIntervals()).toEqual([]);
    sweepers.onApplicationBootstrap();
    expect(schedule.getIntervals()).toEqual(['sweep:a']);
    await sweepers.onModuleDestroy();
    expect(schedule.getIntervals()).toEqual([]);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toEqual([]);
  });

  it('never overlaps a sweep with itself: ticks during a run are skipped, and run() joins it', async () => {
    let started = 0;
    let finish: () => void = () => undefined;
    sweepers.register({ name: 'slow', everyMs: 1_000, run: () => new Promise<void>((resolve) => ((started += 1), (finish = resolve))) });
    sweepers.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(started).toBe(1);
    const joined = sweepers.run('slow');
    expect(started).toBe(1);
    finish();
    await joined;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(2);
    finish();
  });

  it('logs a failing sweep and runs it again at the next tick', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    let calls = 0;
    sweepers.register({
      name: 'flaky',
      everyMs: 1_000,
      run: async () => {
        calls += 1;
        throw new Error('database away');
      },
    });
    sweepers.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(2);
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ sweep: 'flaky' }), 'flaky failed');
  });

  it('stops at module destroy, after the run under way', async () => {
    let finish: () => void = () => undefined;
    let runs = 0;
    sweepers.register({ name: 'a', everyMs: 1_000, run: () => new Promise<void>((resolve) => ((runs += 1), (finish = resolve))) });
    sweepers.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = sweepers.onModuleDestroy().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await jest.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
  });

  it('refuses two sweeps of one name', () => {
    sweepers.register({ name: 'a', everyMs: 1_000, run: async () => undefined });
    expect(() => sweepers.register({ name: 'a', everyMs: 2_000, run: async () => undefined })).toThrow(/registered already/);
  });
});
