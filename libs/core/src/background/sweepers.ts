import { Injectable, Logger, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';

/**
 * A periodic job of the worker. Most make up for work a crash or a lost queue job left behind: they
 * find rows nobody is working on (an expired lease, a job never enqueued) and hand them on; others
 * keep something current (exchange rates, the catalog, the list counts). Any number of workers run
 * the same sweeps; each sweep must be safe to run anywhere at any time.
 */
export interface Sweep {
  /** Unique in the process; names the sweep in logs. */
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

interface Scheduled {
  sweep: Sweep;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
}

/**
 * The one registry of sweeps (docs/operations.md, Background work): each domain registers its own,
 * by name and interval, from its worker-side provider (`onModuleInit`), and this runs them once the
 * application has started, until it stops. A sweep never overlaps itself (a tick that comes while
 * the last run is under way is skipped), and a failure is logged, never thrown: the next tick tries
 * again. The timers are @nestjs/schedule's intervals, named `sweep:<name>` in its SchedulerRegistry, so
 * whatever inspects the application's schedule sees them beside any other.
 */
@Injectable()
export class Sweepers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(Sweepers.name);
  private readonly sweeps = new Map<string, Scheduled>();
  private started = false;

  constructor(private readonly schedule: SchedulerRegistry) {}

  register(sweep: Sweep): void {
    if (this.sweeps.has(sweep.name)) throw new Error(`a sweep named ${sweep.name} is registered already`);
    if (!(sweep.everyMs > 0)) throw new Error(`sweep ${sweep.name} needs an interval, not ${sweep.everyMs}`);
    const scheduled: Scheduled = { sweep, timer: null, running: null };
    this.sweeps.set(sweep.name, scheduled);
    if (this.started) this.start(scheduled);
  }

  /** The registered sweeps' names. */
  names(): string[] {
    return [...this.sweeps.keys()];
  }

  /** Runs the sweep now, or waits for the run under way; resolves when it is over (failures are logged). */
  run(name: string): Promise<void> {
    const scheduled = this.sweeps.get(name);
    if (!scheduled) throw new Error(`no sweep named ${name}`);
    scheduled.running ??= scheduled.sweep
      .run()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error, sweep: name }, `${name} failed`))
      .finally(() => {
        scheduled.running = null;
      });
    return scheduled.running;
  }

  /** After every module's init, so every domain has registered its sweeps. */
  onApplicationBootstrap(): void {
    this.started = true;
    for (const scheduled of this.sweeps.values()) this.start(scheduled);
  }

  /** Stops the timers and waits for the runs under way, before the connections they use close. */
  async onModuleDestroy(): Promise<void> {
    this.started = false;
    for (const scheduled of this.sweeps.values()) {
      if (scheduled.timer) this.schedule.deleteInterval(intervalName(scheduled.sweep));
      scheduled.timer = null;
    }
    await Promise.all([...this.sweeps.values()].map((scheduled) => scheduled.running));
  }

  private start(scheduled: Scheduled): void {
    const { name, everyMs } = scheduled.sweep;
    scheduled.timer = setInterval(() => {
      if (!scheduled.running) void this.run(name);
    }, everyMs);
    this.schedule.addInterval(intervalName(scheduled.sweep), scheduled.timer);
  }
}

const intervalName = (sweep: Sweep): string => `sweep:${sweep.name}`;

/**
 * Imported by each domain's worker module that registers a sweep; one registry per application
 * (every periodic job of the worker is registered here: nothing schedules an interval of its own).
 */
@Module({ imports: [ScheduleModule.forRoot()], providers: [Sweepers], exports: [Sweepers] })
export class SweepersModule {}
