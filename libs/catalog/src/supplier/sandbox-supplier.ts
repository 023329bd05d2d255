import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SANDBOX_CATALOG, SANDBOX_FAILING_BRAND_KEY } from './sandbox-catalog';
import {
  GiftCardSupplier,
  IssueCardRequest,
  SupplierBrand,
  SupplierCard,
  SupplierError,
  SupplierItem,
} from './supplier.port';

// Fixed, public: sandbox cards are fake, the key only makes them stable across restarts.
const CARD_KEY = 'rewards-sandbox-supplier-v1';
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I: codes get typed by hand

/** What the sandbox remembers of an order: enough to rebuild the card, which derives from the reference. */
export interface SandboxOrder {
  utid: string;
  amountCents: number;
  currency: string;
}

/**
 * The sandbox's order book, keyed by reference. In memory by default; the service gives it one in
 * Redis (SandboxRedisOrderBook), so that, like a real supplier, it remembers orders across our
 * processes and restarts, and `getCard` finds an order a worker placed before it died.
 */
export interface SandboxOrderBook {
  find(reference: string): Promise<SandboxOrder | null>;
  /** Records the order unless the reference has one; true when this call placed it. */
  place(reference: string, order: SandboxOrder): Promise<boolean>;
  /** Counts an order asked for again with a reference that already had one (answered with the original). */
  noteRepeat(reference: string): Promise<void>;
}

export class SandboxMemoryOrderBook implements SandboxOrderBook {
  private readonly orders = new Map<string, SandboxOrder>();

  async find(reference: string): Promise<SandboxOrder | null> {
    return this.orders.get(reference) ?? null;
  }

  async place(reference: string, order: SandboxOrder): Promise<boolean> {
    if (this.orders.has(reference)) return false;
    this.orders.set(reference, order);
    return true;
  }

  async noteRepeat(_reference: string): Promise<void> {}
}

/** `SANDBOX_SUPPLIER_LATENCY_MS` plus up to `SANDBOX_SUPPLIER_JITTER_MS`, drawn per call. */
export function sandboxLatency(latencyMs: number, jitterMs: number): () => number {
  return () => latencyMs + (jitterMs > 0 ? Math.floor(Math.random() * (jitterMs + 1)) : 0);
}

/**
 * `SUPPLIER=sandbox`: the built-in catalog and fake but realistic cards.
 *
 * Issuance is deterministic: a card's credentials are an HMAC of its reference, so the same
 * reference yields the same card in any process, also after a restart (the idempotency a real
 * supplier gives for its order reference). An order asked for again with its reference is answered
 * with the original card, never a second order. Each call takes `delayMs()`: half of it before the
 * order is placed and half for the answer to come back, so a caller that dies during a call may
 * leave an order behind that only `getCard` tells it about (docs/rewards.md, Issuance).
 */
export class SandboxSupplier implements GiftCardSupplier {
  private readonly items = new Map<string, { brand: SupplierBrand; item: SupplierItem }>();

  constructor(
    private readonly delayMs: () => number = sandboxLatency(100, 0),
    private readonly orders: SandboxOrderBook = new SandboxMemoryOrderBook(),
  ) {
    for (const brand of SANDBOX_CATALOG) for (const item of brand.items) this.items.set(item.utid, { brand, item });
  }

  async listCatalog(): Promise<SupplierBrand[]> {
    return structuredClone(SANDBOX_CATALOG) as SupplierBrand[];
  }

  async issueCard(request: IssueCardRequest): Promise<SupplierCard> {
    const delay = this.delayMs();
    await sleep(Math.floor(delay / 2));
    const previous = await this.orders.find(request.reference);
    if (previous) {
      await this.orders.noteRepeat(request.reference);
      if (previous.utid !== request.utid || previous.amountCents !== request.amountCents || previous.currency !== request.currency.toUpperCase()) {
        throw new SupplierError(`Reference ${request.reference} was already used for a different card.`, true);
      }
      await sleep(delay - Math.floor(delay / 2));
      return this.cardOf(request.reference, previous);
    }
    const found = this.items.get(request.utid);
    if (!found) throw new SupplierError(`Unknown item ${request.utid}.`, true);
    const { brand, item } = found;
    if (brand.brandKey === SANDBOX_FAILING_BRAND_KEY) {
      throw new SupplierError(`Brand ${brand.brandKey} refuses every order (sandbox failure brand).`, true);
    }
    checkAmount(item, request);
    const order: SandboxOrder = { utid: item.utid, amountCents: request.amountCents, currency: item.currencyCode };
    // A concurrent call with the same reference may have placed it first: both answer with that order.
    if (!(await this.orders.place(request.reference, order))) await this.orders.noteRepeat(request.reference);
    const placed = (await this.orders.find(request.reference)) ?? order;
    await sleep(delay - Math.floor(delay / 2));
    return this.cardOf(request.reference, placed);
  }

  async getCard(reference: string): Promise<SupplierCard | null> {
    const order = await this.orders.find(reference);
    return order ? this.cardOf(reference, order) : null;
  }

  private cardOf(reference: string, order: SandboxOrder): SupplierCard {
    const found = this.items.get(order.utid);
    if (!found) throw new SupplierError(`Unknown item ${order.utid}.`, true);
    return this.cardFor(found.brand, found.item, { ...order, reference });
  }

  private cardFor(brand: SupplierBrand, item: SupplierItem, request: IssueCardRequest): SupplierCard {
    const digest = createHmac('sha256', CARD_KEY).update(request.reference, 'utf8').digest();
    const code = [...digest.subarray(0, 16)].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join('');
    const barcode = digest.subarray(16, 26).reduce((digits, byte) => digits + String(byte % 10), '6');
    const token = digest.subarray(0, 18).toString('base64url');
    // A day in 2031-2032, far enough out to look like a real card's five-year validity.
    const expiry = new Date(Date.UTC(2031, 0, 1) + (digest.readUInt16BE(26) % 730) * 86_400_000).toISOString().slice(0, 10);
    return {
      reference: request.reference,
      utid: item.utid,
      amountCents: request.amountCents,
      currency: item.currencyCode,
      credentials: [
        { label: 'Claim Code', value: code.match(/.{4}/g)!.join('-'), type: 'text' },
        { label: 'Redemption Link', value: `https://redeem.sandbox.rewards.example/c/${token}`, type: 'url' },
        { label: 'Barcode', value: barcode, type: 'barcode' },
        { label: 'Expiration Date', value: expiry, type: 'date' },
      ],
      redemptionInstructions:
        `Open the redemption link or enter the claim code at checkout with ${brand.name}. ` +
        'In store, show the barcode to the cashier. Use the card before its expiration date.',
    };
  }
}

function checkAmount(item: SupplierItem, request: IssueCardRequest): void {
  if (request.currency.toUpperCase() !== item.currencyCode) {
    throw new SupplierError(`Item ${item.utid} is sold in ${item.currencyCode}, not ${request.currency}.`, true);
  }
  const cents = request.amountCents;
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new SupplierError(`Amount ${cents} is not a positive number of cents.`, true);
  }
  if (item.valueType === 'FIXED_VALUE') {
    if (cents !== Math.round(item.faceValue! * 100)) {
      throw new SupplierError(`Item ${item.utid} has a face value of ${item.faceValue} ${item.currencyCode}.`, true);
    }
  } else if (cents < Math.round(item.minValue! * 100) || cents > Math.round(item.maxValue! * 100)) {
    throw new SupplierError(
      `Item ${item.utid} takes ${item.minValue} to ${item.maxValue} ${item.currencyCode}.`,
      true,
    );
  }
}
