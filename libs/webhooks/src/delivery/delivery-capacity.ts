import { Injectable } from '@nestjs/common';
import { ConnectionSlots } from './connection-slots';
import { MAX_SOCKETS_PER_ENDPOINT } from './webhook-http-client';

/**
 * Attempts one process holds at once, over all endpoints: from the claim until the outcome is
 * recorded (not only while the request is under way), so a recorder that falls behind slows the
 * claims down instead of piling up leases.
 */
export const MAX_IN_FLIGHT = 2048;
/**
 * Attempts one endpoint's deliveries may hold in this process at once, leased by the relay or
 * claimed, counting those under way: twice its connections, so a fan-out of a burst of events
 * leases them all (no later claim, no second write before the attempt) and the ones past the
 * connection limit wait here, leased, for a connection to free up (milliseconds: an attempt takes
 * tens of them).
 */
const MAX_LEASED_PER_ENDPOINT = 2 * MAX_SOCKETS_PER_ENDPOINT;
/**
 * While some of its attempts are held, an endpoint claims more only once it may hold this many more,
 * so claims stay batches rather than one delivery at a time.
 */
const REFILL_AT = Math.max(1, Math.floor(MAX_SOCKETS_PER_ENDPOINT / 4));

interface EndpointLoad {
  /** Attempts of this endpoint held (claimed, or reserved and leased by the relay) and not yet answered, sending or waiting for a connection. */
  inFlight: number;
  /** The endpoint's connections: MAX_SOCKETS_PER_ENDPOINT attempts send at once, the others wait their turn. */
  connections: ConnectionSlots;
}

/**
 * How many attempts this process may take on, per endpoint and in all, and the endpoints'
 * connections. An endpoint's attempt counts from its claim (or reservation) until it is answered;
 * for the process it counts until its outcome is recorded. Whoever waits for room (`freed`) is woken
 * whenever some comes back.
 */
@Injectable()
export class DeliveryCapacity {
  private readonly endpoints = new Map<string, EndpointLoad>();
  /** Attempts held by this process (from the claim until the outcome is recorded). */
  private held = 0;
  /** Attempts reserved by the relay for the deliveries it is creating (see reserve). */
  private reserved = 0;
  private waiters: (() => void)[] = [];

  /** How many more attempts the endpoint may take on now. */
  room(endpointId: string): number {
    const load = this.endpoints.get(endpointId);
    return Math.min(MAX_LEASED_PER_ENDPOINT - (load?.inFlight ?? 0), MAX_IN_FLIGHT - this.held - this.reserved);
  }

  /** How many to claim for the endpoint now; 0 means wait for room (`freed`): none, or too little to be worth a batch while it is busy. */
  claimable(endpointId: string): number {
    const free = this.room(endpointId);
    if (free <= 0 || (free < REFILL_AT && (this.endpoints.get(endpointId)?.inFlight ?? 0) > 0)) return 0;
    return free;
  }

  /** Takes up to `wanted` of the endpoint's room for deliveries being created; answered with how many. Handed back with `unreserve`. */
  reserve(endpointId: string, wanted: number): number {
    const taken = Math.max(0, Math.min(wanted, this.room(endpointId)));
    if (taken === 0) return 0;
    this.load(endpointId).inFlight += taken;
    this.reserved += taken;
    return taken;
  }

  unreserve(endpointId: string, count: number): void {
    if (count === 0) return;
    this.answered(endpointId, count);
    this.reserved -= count;
  }

  /** `count` attempts of the endpoint are held from now on. */
  take(endpointId: string, count: number): void {
    this.load(endpointId).inFlight += count;
    this.held += count;
  }

  /** The endpoint's connections (its attempts wait for one in order of arrival). */
  connections(endpointId: string): ConnectionSlots {
    return this.load(endpointId).connections;
  }

  /** An attempt of the endpoint has its answer: the endpoint may take another on. */
  answered(endpointId: string, count = 1): void {
    const load = this.endpoints.get(endpointId);
    if (!load) return;
    load.inFlight -= count;
    if (load.inFlight === 0) this.endpoints.delete(endpointId);
    this.wake();
  }

  /** An attempt's outcome is written: the process may take another on. */
  recorded(): void {
    this.held -= 1;
    this.wake();
  }

  /** Resolves the next time room comes back (or `wake` is called). */
  freed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes everyone waiting for room (to see that the process is stopping). */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  private load(endpointId: string): EndpointLoad {
    let load = this.endpoints.get(endpointId);
    if (!load) {
      load = { inFlight: 0, connections: new ConnectionSlots(MAX_SOCKETS_PER_ENDPOINT) };
      this.endpoints.set(endpointId, load);
    }
    return load;
  }
}
