import { ConnectionSlots } from './connection-slots';

/** Which of the named waiters have been handed a slot so far (after pending callbacks ran). */
async function served(waiters: Record<string, Promise<void>>): Promise<string[]> {
  const done: string[] = [];
  for (const [name, waiting] of Object.entries(waiters)) void waiting.then(() => done.push(name));
  await new Promise((resolve) => setImmediate(resolve));
  return done.sort();
}

describe('ConnectionSlots', () => {
  it('lets `limit` callers in at once and queues the rest', () => {
    const slots = new ConnectionSlots(2);
    expect(slots.acquire()).toBeUndefined();
    expect(slots.acquire()).toBeUndefined();
    expect(slots.acquire()).toBeInstanceOf(Promise);
  });

  it('hands a freed slot to the caller that waited longest, not to one arriving after the release', async () => {
    const slots = new ConnectionSlots(1);
    slots.acquire();
    const first = slots.acquire() as Promise<void>;
    const second = slots.acquire() as Promise<void>;
    slots.release();
    // Arrives while `first` has been handed the slot but has not yet run: it must wait too.
    const newcomer = slots.acquire();
    expect(newcomer).toBeInstanceOf(Promise);
    expect(await served({ first, second, newcomer: newcomer as Promise<void> })).toEqual(['first']);
    slots.release();
    expect(await served({ second, newcomer: newcomer as Promise<void> })).toEqual(['second']);
    slots.release();
    expect(await served({ newcomer: newcomer as Promise<void> })).toEqual(['newcomer']);
  });

  it('frees the slot when nobody waits, so the next caller gets it at once', () => {
    const slots = new ConnectionSlots(1);
    slots.acquire();
    slots.release();
    expect(slots.acquire()).toBeUndefined();
    expect(slots.acquire()).toBeInstanceOf(Promise);
  });
});
