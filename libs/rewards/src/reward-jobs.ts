import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Global, Injectable, Logger, Module } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { CARD_ISSUANCE_QUEUE, CardIssuanceJob, MAIL_QUEUE, MailJob, RewardWork } from '@app/core';

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
 * Enqueues in Bull from this process. The job id is the row id, so enqueueing twice (here and from
 * the sweeper) makes one job. A failure here loses nothing: the rows stay PENDING and
 * RewardBackgroundJobs' sweeper enqueues them again.
 */
@Injectable()
export class QueueRewardJobs extends RewardJobs {
  private readonly logger = new Logger(RewardJobs.name);

  constructor(
    @InjectQueue(CARD_ISSUANCE_QUEUE) private readonly cards: Queue<CardIssuanceJob>,
    @InjectQueue(MAIL_QUEUE) private readonly mails: Queue<MailJob>,
  ) {
    super();
  }

  override async enqueue(work: RewardWork): Promise<void> {
    try {
      await Promise.all([
        work.cardIds?.length
          ? this.cards.addBulk(work.cardIds.map((cardId) => ({ data: { cardId }, opts: { ...CARD_JOB, jobId: cardId } })))
          : null,
        work.mailJobIds?.length
          ? this.mails.addBulk(work.mailJobIds.map((mailJobId) => ({ data: { mailJobId }, opts: { ...MAIL_JOB, jobId: mailJobId } })))
          : null,
      ]);
    } catch (error) {
      this.logger.warn({ err: error, work }, 'enqueueing failed; the sweeper will pick the work up');
    }
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
