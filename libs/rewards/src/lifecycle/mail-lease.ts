import { Injectable, Logger } from '@nestjs/common';
import { Lease, whileRenewed } from './lease';
import { MailJobRepository } from './mail-job.repository';

/** How long a claimed e-mail stays with its worker without a renewal. */
export const MAIL_LEASE_MS = 10_000;
/** How often a worker sending an e-mail renews its lease. */
export const MAIL_LEASE_RENEW_MS = 3_000;

/** An e-mail job whose lease a run holds, and which attempt this is. */
export interface LeasedMail {
  id: string;
  rewardId: string;
  attempt: number;
}

/**
 * The lease on an e-mail job while one run sends it: it keeps a duplicate job (a stalled job re-run,
 * the sweeper) from sending it twice at once. It is short and renewed while the send is alive, so a
 * dead worker's e-mail is taken over within seconds (the sweeper enqueues it once the lease has run
 * out; docs/operations.md, Leases). Its SQL is MailJobRepository's.
 */
@Injectable()
export class MailLease implements Lease<LeasedMail, [lastError: string]> {
  private readonly logger = new Logger(MailLease.name);

  constructor(private readonly mailJobs: MailJobRepository) {}

  /** Null when the job is settled (SENT, FAILED), or another run holds a live lease on it. */
  take(mailJobId: string): Promise<LeasedMail | null> {
    return this.mailJobs.takeLease(mailJobId, MAIL_LEASE_MS);
  }

  renew(mail: LeasedMail): Promise<void> {
    return this.mailJobs.renewLease(mail, MAIL_LEASE_MS);
  }

  /** Gives the lease up after a failed send that will be retried, noting why. */
  release(mail: LeasedMail, lastError: string): Promise<void> {
    return this.mailJobs.releaseLease(mail, lastError);
  }

  /** Runs `work` (the send) while renewing the lease every MAIL_LEASE_RENEW_MS. */
  hold<T>(mail: LeasedMail, work: () => Promise<T>): Promise<T> {
    return whileRenewed(this, mail, MAIL_LEASE_RENEW_MS, this.logger, work);
  }
}
