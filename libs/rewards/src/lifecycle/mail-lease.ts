import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows, RowLease, Statement } from '@app/core';
import { HeldLeases, Lease } from './lease';

/** How long a claimed e-mail stays with its worker without a renewal. */
export const MAIL_LEASE_MS = 10_000;
/** A worker sending an e-mail renews its lease once it is this old (its heartbeat looks every second). */
export const MAIL_LEASE_RENEW_MS = 3_000;

/**
 * The lease of an e-mail job being sent (docs/operations.md, Leases): `leased_until` says when it
 * runs out, `attempts` counts the sends. A FAILED outcome ends it (MailJobRepository.markFailed);
 * a SENT job is no longer pending, which ends it too.
 */
export const MAIL_LEASE = new RowLease({
  table: 'mail_jobs',
  alias: 'm',
  attempt: 'attempts',
  lease: { until: 'leased_until' },
  pending: (m) => `${m}.status = 'PENDING'`,
  ms: MAIL_LEASE_MS,
});

/** What `takeReading` returns of the job it took, beside what its caller selects. */
export interface TakenMail {
  job_id: string;
  reward_id: string;
  attempts: number;
  kind: 'reward' | 'resend' | 'reminder';
  channel: 'email' | 'sms';
}

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
 * out; docs/operations.md, Leases). Its statements are MAIL_LEASE's, pinned in
 * libs/rewards/sql/mail-lease.sql.
 */
@Injectable()
export class MailLease implements Lease<LeasedMail, [lastError: string]> {
  private readonly leases: HeldLeases<LeasedMail>;

  constructor(private readonly dataSource: DataSource) {
    this.leases = new HeldLeases(MAIL_LEASE, dataSource.manager, (mail) => ({ id: mail.id, attempt: mail.attempt }), {
      renewAfterMs: MAIL_LEASE_RENEW_MS,
      logger: new Logger(MailLease.name),
      what: 'e-mail',
    });
  }

  /** Null when the job is settled (SENT, FAILED), or another run holds a live lease on it. */
  take(mailJobId: string): Promise<LeasedMail | null> {
    return this.leases.take<{ id: string; reward_id: string; attempts: number }>(
      (statement) => MAIL_LEASE.takeOne(statement, { id: mailJobId, returning: 'm.id, m.reward_id, m.attempts' }),
      (row) => ({ id: row.id, rewardId: row.reward_id, attempt: row.attempts }),
    );
  }

  /**
   * `take`, and in the same statement what the send reads about the job it took: `select` is a query
   * over `taken` (the job's `job_id`, `reward_id`, `attempts`, `kind` and `channel`). One round trip
   * instead of two. Null as for `take`.
   *
   * What `select` joins is read as of the statement's start, even when the take had to wait for
   * another transaction's lock on the job row. So a change to the reward (its address, say) must never
   * be made in a transaction that also locks a PENDING job of it: such a change inserts a new job
   * instead, as correcting the address and resending do (RewardLifecycle).
   */
  async takeReading<Row extends TakenMail>(mailJobId: string, select: (taken: string) => string): Promise<{ mail: LeasedMail; row: Row } | null> {
    let read: Row | undefined;
    const mail = await this.leases.take<Row>(
      (statement) =>
        `WITH taken AS (${MAIL_LEASE.takeOne(statement, { id: mailJobId, returning: 'm.id AS job_id, m.reward_id, m.attempts, m.kind, m.channel' })})\n${select('taken')}`,
      (row) => {
        read = row;
        return { id: row.job_id, rewardId: row.reward_id, attempt: row.attempts };
      },
    );
    return mail && read ? { mail, row: read } : null;
  }

  /** Moves the lease on, if this run still holds it (what `hold`'s heartbeat sends). */
  renew(mail: LeasedMail): Promise<void> {
    return this.leases.renew(mail);
  }

  /** Gives the lease up after a failed send that will be retried, noting why. */
  release(mail: LeasedMail, lastError: string): Promise<void> {
    return this.leases.release(mail, (statement) => ({ last_error: statement.param(lastError.slice(0, 500)) }));
  }

  /**
   * Gives the lease up after a temporary refusal, noting why and when the next attempt is due (on the
   * service's clock): the sweeper enqueues it then, not before (docs/delivery.md).
   */
  releaseUntil(mail: LeasedMail, lastError: string, nextAttemptAt: Date): Promise<void> {
    return this.leases.release(mail, (statement) => ({
      last_error: statement.param(lastError.slice(0, 500)),
      next_attempt_at: `${statement.param(nextAttemptAt.toISOString())}::timestamptz`,
    }));
  }

  /** Runs `work` (the send) while the heartbeat renews the lease once it is MAIL_LEASE_RENEW_MS old. */
  hold<T>(mail: LeasedMail, work: () => Promise<T>): Promise<T> {
    return this.leases.during(mail, work);
  }

  /**
   * For the sweeper: PENDING jobs whose lease ran out (the worker sending them died: a live one
   * renews it every few seconds), oldest lease first, with the attempt each was at.
   */
  async expired(limit: number): Promise<{ id: string; attempts: number }[]> {
    const statement = new Statement();
    const rows = await queryRows<{ id: string; attempt: number }>(this.dataSource.manager, MAIL_LEASE.expiredRows(statement, { limit }), statement.params);
    return rows.map((row) => ({ id: row.id, attempts: row.attempt }));
  }
}
