/** A text message to one phone (docs/delivery.md, SMS). */
export interface OutgoingSms {
  /** E.164, e.g. `+14155550123`. */
  to: string;
  body: string;
  /** Names the text in the outbox's file name, so a test or an operator can find a given one. */
  reference: string;
}

/**
 * The provider did not take the text. `permanent`: it refused this text for this number (an invalid
 * or unsubscribed number) and will refuse it again; otherwise (the provider down or busy, no answer)
 * it is tried again later.
 */
export class SmsRefusal extends Error {
  constructor(
    /** The provider's answer (status, code and message), or what went wrong when there was none; at most 200 characters. */
    readonly reason: string,
    readonly permanent: boolean,
  ) {
    super(reason);
    this.name = 'SmsRefusal';
  }
}

/**
 * The port reward texts go out through; SMS_PROVIDER chooses the adapter (OutboxSmsSender,
 * TwilioSmsSender). `send` resolves once the provider has taken the text and throws an SmsRefusal
 * when it has not.
 */
export abstract class SmsSender {
  abstract send(sms: OutgoingSms): Promise<void>;
}
