'use strict';
// A fast machine's webhook phase collects well over a hundred thousand receipts per run; the summary
// must take a million without overflowing the stack (a spread into Math.min once did).
const { describe, expect, it } = require('@jest/globals');
const { deliverySummary } = require('./delivery-summary');
const { spread, stats, lowest, highest, appendAll } = require('./numbers');

const MILLION = 1_000_000;

describe('bench summaries of a million samples', () => {
  it('summarises a million webhook receipts: count, duplicates, rate, lags by third, drain', () => {
    const from = 1_800_000_000_000;
    const to = from + 100_000; // a 100-s load; one event committed every 0.1 ms
    const receipts = new Array(MILLION);
    for (let i = 0; i < MILLION; i++) {
      const createdAt = from + i / 10;
      // 20 ms of lag in the first half of the load, 40 ms in the second; the last event is received at to + 40 ms
      receipts[i] = { at: createdAt + (i < MILLION / 2 ? 20 : 40), createdAt, id: `evt_${i}`, endpoint: '/a' };
    }
    receipts.push({ ...receipts[7] }); // one delivered twice

    const s = deliverySummary(receipts, from, to);

    expect(s.deliveries).toBe(MILLION + 1);
    expect(s.duplicates).toBe(1);
    expect(s.lagFirstThirdMs.p99).toBe(20);
    expect(s.lagLastThirdMs.p50).toBe(40);
    expect(s.lagMs.n).toBe(MILLION + 1);
    expect(s.drainAfterLoadS).toBeCloseTo(0.04, 2);
    // 1,000,001 receipts between from + 20 ms and to + 39.9 ms
    expect(s.deliveriesPerS).toBe(Math.round((MILLION + 1) / ((to + 39.9 - (from + 20)) / 1000)));
  });

  it('a run without receipts reports nothing rather than Infinity', () => {
    const s = deliverySummary([], 0, 1000);
    expect(s.deliveries).toBe(0);
    expect(s.deliveriesPerS).toBeNull();
    expect(s.drainAfterLoadS).toBeNull();
  });

  it('numbers: lowest, highest, stats, spread and appendAll take a million values', () => {
    const values = Array.from({ length: MILLION }, (_, i) => (i * 7919) % MILLION);
    expect(lowest(values)).toBe(0);
    expect(highest(values)).toBe(MILLION - 1);
    expect(stats(values)).toMatchObject({ n: MILLION, p50: 499_999, max: MILLION - 1 });
    expect(spread(values)).toMatchObject({ min: 0, max: MILLION - 1, n: MILLION });
    const target = [1];
    expect(appendAll(target, values)).toHaveLength(MILLION + 1);
    expect(target[1]).toBe(0);
    expect(target[MILLION]).toBe(values[MILLION - 1]);
  });
});
