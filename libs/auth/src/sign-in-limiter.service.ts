import { Injectable } from '@nestjs/common';
import { RateLimiter } from './rate-limiter.service';

/** Sign-in attempts allowed per client address a minute, and failed ones per e-mail address in 15 minutes. */
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 30;
export const SIGN_IN_FAILURES_PER_EMAIL = 10;
const EMAIL_WINDOW_MS = 15 * 60_000;

/**
 * The limits on password sign-in, shared by the dashboard and the OAuth authorize pages (one budget
 * for both, since they guard the same passwords). Every attempt counts against the address; only
 * failures count against the e-mail, so a person who signs in often is never locked out, but
 * guessing one password is slow from any number of addresses.
 */
@Injectable()
export class SignInLimiter {
  constructor(private readonly limiter: RateLimiter) {}

  /** Counts the attempt; `retryAfterSeconds` when it must be refused. */
  async admit(address: string, email: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    const [byAddress, byEmail] = await Promise.all([
      this.limiter.hit('sign-in', address, SIGN_IN_ATTEMPTS_PER_ADDRESS),
      this.limiter.peek('sign-in-failures', email, SIGN_IN_FAILURES_PER_EMAIL, EMAIL_WINDOW_MS),
    ]);
    const exceeded = [byAddress, byEmail].filter((limit) => !limit.allowed);
    if (exceeded.length === 0) return { allowed: true };
    return { allowed: false, retryAfterSeconds: exceeded.reduce((longest, limit) => Math.max(longest, limit.resetSeconds), 0) };
  }

  async failed(email: string): Promise<void> {
    await this.limiter.hit('sign-in-failures', email, SIGN_IN_FAILURES_PER_EMAIL, EMAIL_WINDOW_MS);
  }
}
