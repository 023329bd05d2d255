/**
 * Queue names and job payloads, in one place: the API side enqueues, the worker side consumes.
 * Payloads carry ids only; the job reads the current state from Postgres under lock.
 */
export const CARD_ISSUANCE_QUEUE = 'card-issuance';
export const MAIL_QUEUE = 'mail';

export interface CardIssuanceJob {
  cardId: string;
}

export interface MailJob {
  mailJobId: string;
}
