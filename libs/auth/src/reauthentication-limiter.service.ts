import { Injectable } from '@nestjs/common';
import { RateLimiter } from './rate-limiter.service';

/** Failed proofs a signed-in user may give in 15 minutes (a wrong current password, a wrong code to turn two-factor off). */
export const REAUTHENTICATION_FAILURES_PER_USER = 10;
const WINDOW_MS = 15 * 60_000;

/**
 * The failure limit behind a session, in the style of SignInLimiter's per-e-mail one: whoever holds a
 * session (a borrowed laptop, a stolen cookie) must not be able to guess the password or a two-factor
 * code at full speed through the change-password and turn-off-two-factor forms. Only failures count,
 * per user (every session of the user shares the budget); when it is used up, even a right answer is
 * refused until the window ends, so the answers tell a guesser nothing. See docs/dashboard.md.
 */
@Injectable()
export class ReauthenticationLimiter {
  constructor(private readonly limiter: RateLimiter) {}

  /** Counts nothing; `retryAfterSeconds` when the user's failures are used up. */
  async admit(userId: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    const failures = await this.limiter.peek('reauthentication-failures', userId, REAUTHENTICATION_FAILURES_PER_USER, WINDOW_MS);
    return failures.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: failures.resetSeconds };
  }

  async failed(userId: string): Promise<void> {
    await this.limiter.hit('reauthentication-failures', userId, REAUTHENTICATION_FAILURES_PER_USER, WINDOW_MS);
  }
}
