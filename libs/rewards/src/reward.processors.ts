import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { APP_CONFIG, AppConfig, CARD_ISSUANCE_QUEUE, MAIL_QUEUE } from '@app/core';
import type { CardIssuanceJob, MailJob } from './reward-jobs';
import { CardIssuanceService } from './card-issuance.service';
import { RewardMailService } from './reward-mail.service';

const isFinalAttempt = (job: Job) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/**
 * Runs ISSUANCE_CONCURRENCY card issuances at once in this process. Registered by hand rather than
 * with `@Process`, whose concurrency is fixed when the code is compiled. The setting is independent
 * of the database pool: a run holds a connection only for its two short statements, never while
 * the supplier answers, so the supplier's latency, not the pool, sets the throughput.
 */
@Injectable()
export class CardIssuanceProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(CardIssuanceProcessor.name);

  constructor(
    private readonly issuance: CardIssuanceService,
    @InjectQueue(CARD_ISSUANCE_QUEUE) private readonly queue: Queue<CardIssuanceJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    // Resolves only when the queue closes; errors are the queue's own (logged), never a job's.
    this.queue
      .process(this.config.issuanceConcurrency, (job: Job<CardIssuanceJob>) => this.issuance.issue(job.data.cardId))
      .catch((error: unknown) => this.logger.error({ err: error }, 'card issuance processing stopped'));
  }
}

@Processor(MAIL_QUEUE)
export class RewardMailProcessor {
  constructor(private readonly mail: RewardMailService) {}

  @Process({ concurrency: 4 })
  handle(job: Job<MailJob>) {
    return this.mail.send(job.data.mailJobId, isFinalAttempt(job));
  }
}
