import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit, Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BACKLOG_DUE, BacklogDue } from './attempt-recorder';
import { DeliveryAttempts } from './delivery-attempts';
import { DeliveryCapacity } from './delivery-capacity';
import { ClaimedDelivery, DeliveryLeases } from './delivery-leases';

interface ClaimLoop {
  /** Due deliveries may be waiting: claim again. */
  wanted: boolean;
  running: Promise<void> | null;
}

/**
 * Sends the due deliveries of an endpoint: claims them in batches, oldest first, as many as the
 * endpoint and the process have room for (DeliveryCapacity), and starts their attempts
 * (DeliveryAttempts). Fresh deliveries mostly come from the relay already leased (`reserve`, then
 * `adopt` after its commit), without a claim. `kick` is called by the relay after a fan-out
 * commits, by the sweep, by the recorder after a recovery, and by the queue processor (retries,
 * pings, manual retries, reactivation); each endpoint has at most one claiming loop per process,
 * and any number of processes can share an endpoint (SKIP LOCKED, lease). Deliveries of one endpoint
 * are not sent in order (docs/webhooks.md, Delivery).
 */
@Injectable()
export class WebhookDeliverer implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliverer.name);
  private readonly loops = new Map<string, ClaimLoop>();
  private stopping = false;

  constructor(
    private readonly leases: DeliveryLeases,
    private readonly capacity: DeliveryCapacity,
    private readonly attempts: DeliveryAttempts,
  ) {}

  onModuleInit(): void {
    this.leases.startHeartbeat();
  }

  /**
   * Stops claiming, then waits for the attempts under way to be answered and recorded, their leases
   * renewed meanwhile; the heartbeat stops after the last one. Runs before the queues and the
   * database close (their shutdown hooks come after this phase).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.capacity.wake();
    await Promise.all([...this.loops.values()].map((loop) => loop.running));
    await this.attempts.drained();
    await this.leases.stopHeartbeat();
  }

  /**
   * Sends the endpoint's due deliveries now (or has the loop already running for it claim once
   * more). Resolves when the loop has claimed all it found, not when those attempts are answered.
   */
  kick(endpointId: string): Promise<void> {
    if (this.stopping) return Promise.resolve();
    let loop = this.loops.get(endpointId);
    if (!loop) {
      loop = { wanted: false, running: null };
      this.loops.set(endpointId, loop);
    }
    loop.wanted = true;
    if (!loop.running) {
      const current = loop;
      let failed = false;
      current.running = this.claimLoop(endpointId, current)
        .catch((error: unknown) => {
          failed = true;
          this.logger.error({ err: error, endpointId }, 'claiming webhook deliveries failed; the sweep will retry');
        })
        .finally(() => {
          current.running = null;
          // A kick that came after the last claim (not after a failure: the sweep retries those, not a tight loop).
          if (current.wanted && !failed && !this.stopping) void this.kick(endpointId);
          else if (this.loops.get(endpointId) === current) this.loops.delete(endpointId);
        });
    }
    return loop.running!;
  }

  /**
   * For the relay, which leases fresh deliveries to this process as it creates them (no claim
   * needed): takes up to `wanted` of the endpoint's room (and of the process's), and answers how
   * many. Every reservation is handed back through `adopt`, whether the fan-out committed or not.
   */
  reserve(endpointId: string, wanted: number): number {
    if (this.stopping || wanted <= 0) return 0;
    // While the endpoint's claim loop runs, due deliveries may be waiting in the table: fresh ones queue
    // behind them (created due, claimed oldest first) rather than going out ahead of them.
    if (this.loops.get(endpointId)?.running) return 0;
    return this.capacity.reserve(endpointId, wanted);
  }

  /**
   * After the fan-out: sends the deliveries it created leased to this process (`leasedAt`: taken
   * before its statement was sent), and frees what of the reservation they did not use. When the
   * process is stopping they are left to their leases, which run out, and a sweep sends them again.
   */
  adopt(endpointId: string, reserved: number, leased: ClaimedDelivery[], leasedAt: number): void {
    this.capacity.unreserve(endpointId, reserved);
    if (leased.length && !this.stopping) this.attempts.start(leased, leasedAt);
  }

  private async claimLoop(endpointId: string, loop: ClaimLoop): Promise<void> {
    while (loop.wanted && !this.stopping) {
      const free = this.capacity.claimable(endpointId);
      if (free === 0) {
        await this.capacity.freed();
        continue;
      }
      loop.wanted = false;
      const claimedAt = Date.now();
      const claimed = await this.leases.claim(endpointId, free);
      // A full batch: more may be due. (A kick during the claim has set `wanted` too.)
      if (claimed.length === free) loop.wanted = true;
      if (claimed.length) this.attempts.start(claimed, claimedAt);
    }
  }
}

/**
 * The recorder's BACKLOG_DUE: kicks the endpoint in this process's deliverer. The deliverer is
 * looked up when called, not injected: it depends on the recorder (through its attempts), so
 * the recorder cannot take it in its constructor.
 */
export const backlogDueProvider: Provider = {
  provide: BACKLOG_DUE,
  inject: [ModuleRef],
  useFactory:
    (modules: ModuleRef): BacklogDue =>
    (endpointId) =>
      void modules.get(WebhookDeliverer).kick(endpointId),
};
