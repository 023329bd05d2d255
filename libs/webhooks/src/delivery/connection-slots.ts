/**
 * At most `limit` holders at once (an endpoint's connections in one process). A freed slot passes
 * straight to the caller that has waited longest, never to one that arrives after it: otherwise an
 * attempt woken a moment too late loses its slot to newcomers, again and again, until its lease
 * runs out (docs/webhooks.md, Delivery).
 */
export class ConnectionSlots {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Takes a slot now (no promise), or resolves once one is handed over. */
  acquire(): Promise<void> | void {
    if (this.taken < this.limit) {
      this.taken += 1;
      return;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next(); // the slot passes to it: `taken` stays as it is
    else this.taken -= 1;
  }
}
