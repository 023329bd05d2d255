import { Global, Injectable, Module } from '@nestjs/common';

/**
 * The current time, for rules that depend on it (TOTP codes, reward expiry). Injected rather than
 * read from `Date.now()` so tests can move time forward instead of waiting for it (docs/testing.md).
 * Database-side times (column defaults, leases, `clock_timestamp()`) stay on the database's clock.
 */
export abstract class Clock {
  abstract now(): Date;
}

/** The wall clock: what every process uses. */
@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** Binds Clock to the wall clock in every process; tests replace the provider (overrideProvider). */
@Global()
@Module({ providers: [{ provide: Clock, useClass: SystemClock }], exports: [Clock] })
export class ClockModule {}
