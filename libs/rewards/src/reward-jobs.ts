import { BullModule, InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, DynamicModule, Global, Injectable, Logger, Module } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { BackgroundEnqueue, CARD_ISSUANCE_QUEUE, MAIL_QUEUE } from '@app/core';

/** The payloads of the rewards' queues: ids only (each job reads its row under lock). */
export interface CardIssuanceJob {
  cardId: string;
}

export interface MailJob {
  mailJobId: string;
}

/** Rows whose queue jobs are due: card issuances and e-mails, by id (each job reads its row). Plain data (it crosses to the worker thread). */
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

const CARD_JOB: JobOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: true,
};
const MAIL_JOB: JobOptions = { attempts: 6, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: true, removeOnFail: true };

/**
 * Where the queue jobs of committed reward work go, called after the transaction that recorded the
 * rows has committed. Which implementation a process gets is chosen once, when it is composed
 * (RewardJobsModule): enqueue in Bull right here, or hand the work to another part of the process
 * (the worker thread of `npm start`). Either way a failure loses nothing: the rows stay PENDING
 * and the worker side's sweeper enqueues them again.
 */
export abstract class RewardJobs {
  abstract enqueue(work: RewardWork): Promise<void>;
}

/**
 * Enqueues in Bull from this process, in the background: `enqueue` returns at once, so a response
 * never waits on Redis after its transaction committed (docs/operations.md, Degraded modes). The
 * job id is the row id, so enqueueing twice (here and from the sweeper) makes one job. A failure
 * here loses nothing: the rows stay PENDING and RewardBackgroundJobs' sweeper enqueues them again.
 */
@Injectable()
export class QueueRewardJobs extends RewardJobs implements BeforeApplicationShutdown {
  private readonly background = new BackgroundEnqueue(new Logger(RewardJobs.name));

  constructor(
    @InjectQueue(CARD_ISSUANCE_QUEUE) private readonly cards: Queue<CardIssuanceJob>,
    @InjectQueue(MAIL_QUEUE) private readonly mails: Queue<MailJob>,
  ) {
    super();
  }

  override enqueue(work: RewardWork): Promise<void> {
    if (work.cardIds?.length) {
      const cardIds = work.cardIds;
      this.background.run({ cardIds }, async () => {
        if (work.swept) await dropHusks(this.cards, cardIds);
        await addAll(this.cards, cardIds.map((cardId) => ({ data: { cardId }, opts: { ...CARD_JOB, jobId: cardId } })));
      });
    }
    if (work.mailJobIds?.length) {
      const mailJobIds = work.mailJobIds;
      this.background.run({ mailJobIds }, async () => {
        if (work.swept) await dropHusks(this.mails, mailJobIds);
        await addAll(this.mails, mailJobIds.map((mailJobId) => ({ data: { mailJobId }, opts: { ...MAIL_JOB, jobId: mailJobId } })));
      });
    }
    if (work.expiredMailLeases?.length) {
      // A job of its own per attempt: the dead worker's job may still exist under the plain id until Bull finds it stalled.
      const mailJobs = work.expiredMailLeases;
      this.background.run({ mailJobIds: mailJobs.map((m) => m.id) }, () =>
        addAll(this.mails, mailJobs.map((m) => ({ data: { mailJobId: m.id }, opts: { ...MAIL_JOB, jobId: `${m.id}.lease${m.attempts}` } }))),
      );
    }
    return Promise.resolve();
  }

  /** Gives the enqueues under way a moment before the queues close. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.background.settle();
  }
}

/**
 * Bull's addBulk sends its jobs in one MULTI and drops each job's error: a job Redis refused comes back
 * without an id, and the call succeeds. Here that is a failure (logged; the rows stay PENDING and the
 * sweeper enqueues them again), and the queue's connection reconnects: writes refused inside a MULTI are
 * how a connection left at a demoted primary after a failover shows, and only a new connection reaches
 * the promoted one (docs/scaling.md, Redis failover).
 */
async function addAll<T>(queue: Queue<T>, jobs: { data: T; opts: JobOptions }[]): Promise<void> {
  const added = await queue.addBulk(jobs);
  const refused = added.filter((job) => job.id === undefined || job.id === null).length;
  if (refused > 0) {
    queue.client.disconnect(true);
    throw new Error(`Redis refused ${refused} of ${jobs.length} jobs of the ${queue.name} queue; reconnecting`);
  }
}

/** A job that will run, or is running, under its id: anything else under that id is a husk. */
const LIVE_JOB_STATES = new Set(['waiting', 'delayed', 'active', 'paused']);

/**
 * Removes the jobs kept under `ids` that are in none of the queue's lists. Bull adds nothing under
 * an id it already holds, so such a husk would silently swallow every later enqueue of its row and
 * leave the row PENDING for good. One is left behind when Redis goes away in the middle of a job
 * (Bull's completion finds the job no longer active) or comes back empty while a worker still
 * writes to it (docs/operations.md, Degraded modes). Only swept rows are checked: ids that made no
 * progress for a while, a few at a time.
 */
async function dropHusks(queue: Queue, ids: string[]): Promise<void> {
  for (const id of ids) {
    const job = await queue.getJob(id);
    if (job && !LIVE_JOB_STATES.has(await job.getState())) await job.remove();
  }
}

/**
 * Binds RewardJobs for the whole process; every composition root imports exactly one of these
 * (the API module, the worker module). The card and mail queues are registered here, so a process
 * that hands its work off holds no connection to them.
 */
@Global()
@Module({})
export class RewardJobsModule {
  /** Enqueue in Bull from this process: the worker side, and an API process without a worker thread. */
  static enqueueHere(): DynamicModule {
    return {
      module: RewardJobsModule,
      imports: [BullModule.registerQueue({ name: CARD_ISSUANCE_QUEUE }, { name: MAIL_QUEUE })],
      providers: [QueueRewardJobs, { provide: RewardJobs, useExisting: QueueRewardJobs }],
      exports: [RewardJobs, BullModule],
    };
  }

  /** Forward the work to `jobs`, e.g. a poster to the worker thread, which enqueues it there. */
  static forwardTo(jobs: RewardJobs): DynamicModule {
    return { module: RewardJobsModule, providers: [{ provide: RewardJobs, useValue: jobs }], exports: [RewardJobs] };
  }
}
