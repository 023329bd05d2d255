import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import { CARD_ISSUANCE_QUEUE, CardIssuanceJob, MAIL_QUEUE, MailJob } from '@app/core';

const CARD_JOB: JobOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: true,
};
const MAIL_JOB: JobOptions = { attempts: 6, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: true, removeOnFail: true };

export interface RewardWork {
  cardIds?: string[];
  mailJobIds?: string[];
}

/**
 * Enqueues work after the transaction that recorded it has committed. The job id is the row id,
 * so enqueueing twice (here and from the sweeper) makes one job. A failure here loses nothing:
 * the rows stay PENDING and RewardBackgroundJobs' sweeper enqueues them again.
 */
@Injectable()
export class RewardJobs {
  private readonly logger = new Logger(RewardJobs.name);
  private handOff: ((work: RewardWork) => void) | null = null;

  constructor(
    @InjectQueue(CARD_ISSUANCE_QUEUE) private readonly cards: Queue<CardIssuanceJob>,
    @InjectQueue(MAIL_QUEUE) private readonly mails: Queue<MailJob>,
  ) {}

  /**
   * Has `send` enqueue instead, e.g. the worker thread of this process (`npm start`): the request
   * thread then spends no Redis round trip on it. Losing the hand-off loses nothing (the sweeper).
   */
  handOffTo(send: (work: RewardWork) => void): void {
    this.handOff = send;
  }

  async enqueue(work: RewardWork): Promise<void> {
    if (this.handOff) {
      try {
        this.handOff(work);
        return;
      } catch (error) {
        this.logger.warn({ err: error }, 'handing jobs off failed; enqueueing here');
      }
    }
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
