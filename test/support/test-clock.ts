import { Clock } from '@app/core';

/**
 * A Clock a test moves by hand (docs/testing.md). It follows the wall clock until told otherwise:
 * `advance` moves it ahead (it keeps ticking from there), `freeze` stops it at one instant (then
 * `advance` moves that instant), `reset` puts it back on the wall clock. Installed with
 * `startTestApp({ overrides: [clockOverride(clock)] })`; the app's startTestWorker shares it.
 */
export class TestClock extends Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  now(): Date {
    return new Date(this.frozenAt ?? Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    if (this.frozenAt === null) this.offsetMs += ms;
    else this.frozenAt += ms;
  }

  freeze(at: Date = this.now()): void {
    this.frozenAt = at.getTime();
  }

  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = null;
  }
}

/** The provider override that installs `clock` in a test app (and its worker side). */
export function clockOverride(clock: TestClock): { provide: typeof Clock; useValue: TestClock } {
  return { provide: Clock, useValue: clock };
}
