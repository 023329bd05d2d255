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

/**
 * `SUPPLIER=sandbox`: the built-in catalog and fake but realistic cards.
 *
 * Issuance is deterministic: a card's credentials are an HMAC of its reference, so the same
 * reference yields the same card in any process, also after a restart (the idempotency a real
 * supplier gives for its order reference). `getCard` answers only for references issued by this
 * process, because a card's item and amount cannot be derived from the reference alone; a caller
 * that lost track after a restart simply issues again with the same reference and gets the same card.
 */
export class SandboxSupplier implements GiftCardSupplier {
  private readonly items = new Map<string, { brand: SupplierBrand; item: SupplierItem }>();
  private readonly issued = new Map<string, SupplierCard>();

  constructor(private readonly delayMs: () => number = () => 50 + Math.floor(Math.random() * 100)) {
    for (const brand of SANDBOX_CATALOG) for (const item of brand.items) this.items.set(item.utid, { brand, item });
  }

  async listCatalog(): Promise<SupplierBrand[]> {
    return structuredClone(SANDBOX_CATALOG) as SupplierBrand[];
  }

  async issueCard(request: IssueCardRequest): Promise<SupplierCard> {
    await sleep(this.delayMs());
    const previous = this.issued.get(request.reference);
    if (previous) {
      if (previous.utid !== request.utid || previous.amountCents !== request.amountCents || previous.currency !== request.currency.toUpperCase()) {
        throw new SupplierError(`Reference ${request.reference} was already used for a different card.`, true);
      }
      return structuredClone(previous);
    }
    const found = this.items.get(request.utid);
    if (!found) throw new SupplierError(`Unknown item ${request.utid}.`, true);
    const { brand, item } = found;
    if (brand.brandKey === SANDBOX_FAILING_BRAND_KEY) {
      throw new SupplierError(`Brand ${brand.brandKey} refuses every order (sandbox failure brand).`, true);
    }
    checkAmount(item, request);
    const card = this.cardFor(brand, item, request);
    this.issued.set(request.reference, card);
    return structuredClone(card);
  }

  async getCard(reference: string): Promise<SupplierCard | null> {
    const card = this.issued.get(reference);
    return card ? structuredClone(card) : null;
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
