import { Injectable } from '@nestjs/common';

/**
 * How fast a replay is turned into deliveries (docs/webhooks.md, Replay): a batch of `batchSize`
 * events at most every `intervalMs` (by the injected Clock), and only while fewer than `batchSize`
 * of the replay's deliveries are still pending. A replay of 100,000 events thus never has more than
 * one batch waiting for its endpoint, and live deliveries (to that endpoint and, above all, to every
 * other one) never queue behind it. Tests replace it with a smaller pace.
 */
@Injectable()
export class ReplayPace {
  // Small batches often rather than large ones seldom: the same 500 events/s at most, without a burst of
  // 500 attempts at once in front of the worker's live ones.
  batchSize = 100;
  intervalMs = 200;
}
