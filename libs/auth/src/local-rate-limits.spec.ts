import { LocalRateLimits } from './local-rate-limits';

describe('LocalRateLimits (the per-process stand-in while Redis is away)', () => {
  it('counts hits per key in a fixed window and starts a new window once it ends', () => {
    const limits = new LocalRateLimits();
    expect(limits.hit('a', 60_000, 1_000)).toEqual([1, 60_000]);
    expect(limits.hit('a', 60_000, 2_000)).toEqual([2, 59_000]);
    expect(limits.hit('b', 60_000, 2_000)).toEqual([1, 60_000]);
    expect(limits.peek('a', 30_000)).toEqual([2, 31_000]);
    expect(limits.hit('a', 60_000, 61_000)).toEqual([1, 60_000]);
  });

  it('peeks at zero, without counting, where nothing was counted', () => {
    const limits = new LocalRateLimits();
    expect(limits.peek('x', 0)).toEqual([0, -2]);
    expect(limits.peek('x', 0)).toEqual([0, -2]);
    expect(limits.hit('x', 1_000, 0)).toEqual([1, 1_000]);
  });
});
