import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { CARD_ISSUANCE_QUEUE, CardIssuanceJob, MAIL_QUEUE, MailJob } from '@app/core';
import { CardIssuanceService } from './card-issuance.service';
import { RewardMailService } from './reward-mail.service';

const isFinalAttempt = (job: Job) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

@Processor(CARD_ISSUANCE_QUEUE)
export class CardIssuanceProcessor {
  constructor(private readonly issuance: CardIssuanceService) {}

  @Process({ concurrency: 8 })
  handle(job: Job<CardIssuanceJob>) {
    return this.issuance.issue(job.data.cardId);
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
