import { Logger } from '@nestjs/common';

/** Enqueues under way at once in one process; past it, new ones are dropped (the sweepers make them up). */
export const MAX_PENDING_ENQUEUES = 2_000;

/**
 * Runs queue enqueues without making the caller wait for them. An enqueue follows a commit: the
 * rows it announces are already durable and a sweeper finds them if the job never arrives, so a
 * response must not wait on Redis (while Redis is away, or reconnecting, Bull holds a command
 * until it can send it). At most MAX_PENDING_ENQUEUES are kept under way; beyond that one is
 * dropped with a warning instead of piling up in memory during a long outage
 * (docs/operations.md, Degraded modes).
 */
export class BackgroundEnqueue {
  private readonly pending = new Set<Promise<void>>();
  private droppedSinceLastWarning = 0;

  constructor(
    private readonly logger: Logger,
    private readonly max = MAX_PENDING_ENQUEUES,
  ) {}

  /** Starts `enqueue` and returns at once; a failure is logged with `what`, never thrown. */
  run(what: Record<string, unknown>, enqueue: () => Promise<unknown>): void {
    if (this.pending.size >= this.max) {
      if (this.droppedSinceLastWarning++ === 0) {
        this.logger.warn({ ...what, pending: this.pending.size }, 'too many enqueues waiting on Redis; dropping (the sweeper re-enqueues)');
      }
      return;
    }
    this.droppedSinceLastWarning = 0;
    const job = Promise.resolve()
      .then(enqueue)
      .then(
        () => undefined,
        (error: unknown) => this.logger.warn({ err: error, ...what }, 'enqueueing failed; the sweeper will pick the work up'),
      );
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  /** Enqueues still under way. */
  get size(): number {
    return this.pending.size;
  }

  /** Waits for the enqueues under way, at most `ms` (at shutdown, so a job is not lost needlessly). */
  async settle(ms = 1_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.pending]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }
}
