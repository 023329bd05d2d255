/**
 * The card supplier as the rest of the service sees it: a catalog to copy into our own tables and
 * card issuance. Adapters (`sandbox`, and `tango` for Tango Card's RaaS API, docs/suppliers.md)
 * implement it; GIFT_CARD_SUPPLIER picks one from config.supplier.
 */
export const GIFT_CARD_SUPPLIER = Symbol('GIFT_CARD_SUPPLIER');

export type CatalogValueType = 'FIXED_VALUE' | 'VARIABLE_VALUE';

/** Values are in major units of the currency (25 means 25.00), as suppliers publish them. */
export interface SupplierItem {
  utid: string;
  rewardName: string;
  currencyCode: string;
  valueType: CatalogValueType;
  /** FIXED_VALUE only. */
  faceValue: number | null;
  /** VARIABLE_VALUE only. */
  minValue: number | null;
  /** VARIABLE_VALUE only. */
  maxValue: number | null;
  /** ISO 3166-1 alpha-2 codes where the card can be redeemed. */
  countries: string[];
}

export interface SupplierBrand {
  brandKey: string;
  name: string;
  description: string;
  shortDescription: string;
  disclaimer: string;
  imageUrl: string;
  categories: string[];
  items: SupplierItem[];
}

export type CredentialType = 'text' | 'url' | 'barcode' | 'date';

export interface CardCredential {
  label: string;
  value: string;
  type: CredentialType;
}

export interface IssueCardRequest {
  utid: string;
  amountCents: number;
  currency: string;
  /**
   * Our card id. The supplier treats it as an idempotency key: issuing again with the same
   * reference returns the same card, never a second one.
   */
  reference: string;
}

export interface SupplierCard {
  reference: string;
  utid: string;
  amountCents: number;
  currency: string;
  credentials: CardCredential[];
  redemptionInstructions: string;
}

/**
 * A failed supplier call. `permanent` errors (unknown item, amount out of range, brand refusing)
 * will fail again on retry and become `card.failed`; transient ones (timeouts, 5xx, 429) are retried
 * with the same reference. `retryAfterMs` is the supplier's own word on when to come back (a 429 or
 * 503 with Retry-After): every worker holds off calling that supplier until then.
 */
export class SupplierError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SupplierError';
  }
}

export interface GiftCardSupplier {
  listCatalog(): Promise<SupplierBrand[]>;
  issueCard(request: IssueCardRequest): Promise<SupplierCard>;
  /** The card issued for `reference`, or null when the supplier has none. */
  getCard(reference: string): Promise<SupplierCard | null>;
}
