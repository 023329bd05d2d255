import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { APP_CONFIG, AppConfig, metricsRegistry, RedisClient } from '@app/core';
import { SupplierError } from './supplier.port';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface SupplierGateOptions {
  /** Transient failures within `failureWindowMs` that open the circuit. */
  failureThreshold: number;
  failureWindowMs: number;
  /** How long an open circuit stops every call before one probe is let through. */
  openMs: number;
  /** How long a probe may take before another caller may probe instead (the prober died). */
  probeLeaseMs: number;
}

export const SUPPLIER_GATE_OPTIONS = Symbol('SUPPLIER_GATE_OPTIONS');

const DEFAULTS: SupplierGateOptions = { failureThreshold: 5, failureWindowMs: 30_000, openMs: 30_000, probeLeaseMs: 30_000 };

/** A caller's turn: `wait` ms before asking again, or go now (`probe`: this call tests a half-open circuit). */
export type GateTurn = { go: false; waitMs: number } | { go: true; probe: boolean };

const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/** Sampled at each scrape from Redis, so the API process shows what the workers see. */
export const supplierCircuitGauge = new Gauge({
  name: 'supplier_circuit_state',
  help: 'The gift-card supplier circuit: 0 closed (calls flow), 1 half-open (one probe call), 2 open (issuance paused).',
  labelNames: ['supplier'] as const,
  registers: [metricsRegistry],
  async collect() {
    const gate = currentGate.gate;
    if (!gate) return;
    const state = await gate.state().catch(() => null);
    if (state) this.set({ supplier: gate.supplier }, CIRCUIT_VALUE[state]);
  },
});

/** The process's gate, for the gauge (tests start several apps in one process; the last one wins). */
const currentGate: { gate: SupplierGate | null } = { gate: null };

/**
 * Whether card issuance may call the supplier now, shared by every worker through Redis (keys under
 * QUEUE_PREFIX, per supplier):
 *
 * - back-off: a supplier that answered 429/503 with Retry-After is not called by anyone until then;
 * - circuit: `failureThreshold` transient failures (timeouts, 5xx, unreachable) within
 *   `failureWindowMs` open it for `openMs`; then it is half-open and exactly one caller probes; a
 *   success closes it, a failure opens it again. Permanent refusals (a 4xx about one card) say
 *   nothing about the supplier's health and do not count.
 *
 * While calls are held back, cards stay PENDING and are retried: nobody's card fails because the
 * supplier is down (docs/rewards.md, Supplier health).
 */
@Injectable()
export class SupplierGate {
  private readonly logger = new Logger(SupplierGate.name);
  readonly supplier: string;
  private readonly options: SupplierGateOptions;

  constructor(
    private readonly redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(SUPPLIER_GATE_OPTIONS) options?: Partial<SupplierGateOptions>,
  ) {
    this.supplier = config.supplier;
    this.options = { ...DEFAULTS, ...options };
    currentGate.gate = this;
  }

  private key(part: string): string {
    return this.redis.key('supplier', this.supplier, part);
  }

  /** One round trip in the common case (nothing held back). */
  async turn(): Promise<GateTurn> {
    const [[, backoff], [, open], [, tripped]] = (await this.redis
      .multi()
      .pttl(this.key('backoff'))
      .pttl(this.key('open'))
      .exists(this.key('tripped'))
      .exec()) as [Error | null, number][];
    if (backoff > 0) return { go: false, waitMs: backoff };
    if (open > 0) return { go: false, waitMs: open };
    if (!tripped) return { go: true, probe: false };
    const probing = await this.redis.set(this.key('probe'), '1', 'PX', this.options.probeLeaseMs, 'NX');
    if (probing === 'OK') return { go: true, probe: true };
    return { go: false, waitMs: 1_000 };
  }

  /** A probe that was not used (the card needed no call): let another caller probe. */
  async abandon(turn: GateTurn): Promise<void> {
    if (turn.go && turn.probe) await this.redis.del(this.key('probe'));
  }

  /** The supplier answered (a card, or a refusal about that card): it is healthy. */
  async succeeded(turn: GateTurn): Promise<void> {
    if (!(turn.go && turn.probe)) {
      // Cheap in the common case; a success also clears failures counted before it.
      await this.redis.del(this.key('failures'));
      return;
    }
    await this.redis.del(this.key('failures'), this.key('tripped'), this.key('probe'));
    this.logger.log({ supplier: this.supplier }, 'supplier circuit closed: the probe succeeded');
  }

  /** A transient failure: honours Retry-After, and counts towards opening the circuit. */
  async failed(turn: GateTurn, error: unknown): Promise<void> {
    const retryAfterMs = error instanceof SupplierError ? error.retryAfterMs : undefined;
    if (retryAfterMs && retryAfterMs > 0) {
      await this.redis.set(this.key('backoff'), String(Date.now() + retryAfterMs), 'PX', Math.ceil(retryAfterMs));
    }
    const probe = turn.go && turn.probe;
    const failures = await this.redis.incr(this.key('failures'));
    if (failures === 1) await this.redis.pexpire(this.key('failures'), this.options.failureWindowMs);
    if (probe || failures >= this.options.failureThreshold) await this.trip(probe ? 'the probe failed' : `${failures} failures`);
  }

  async state(): Promise<CircuitState> {
    const [[, open], [, tripped]] = (await this.redis.multi().pttl(this.key('open')).exists(this.key('tripped')).exec()) as [
      Error | null,
      number,
    ][];
    return open > 0 ? 'open' : tripped ? 'half_open' : 'closed';
  }

  private async trip(reason: string): Promise<void> {
    await this.redis
      .multi()
      .set(this.key('open'), '1', 'PX', this.options.openMs)
      // Outlives any outage; a success deletes it.
      .set(this.key('tripped'), '1', 'EX', 7 * 86_400)
      .del(this.key('probe'), this.key('failures'))
      .exec();
    this.logger.warn({ supplier: this.supplier, reason, openMs: this.options.openMs }, 'supplier circuit opened: issuance pauses');
  }
}
