import { Logger } from '@nestjs/common';
import type { TangoConfig } from '@app/core';
import {
  CardCredential,
  CredentialType,
  GiftCardSupplier,
  IssueCardRequest,
  SupplierBrand,
  SupplierCard,
  SupplierError,
  SupplierItem,
} from '../supplier.port';
import type { TangoBrand, TangoCatalog, TangoCreateOrderRequest, TangoErrorBody, TangoItem, TangoOrder, TangoOrderList } from './tango-wire';

export interface TangoSupplierOptions extends TangoConfig {
  /** One HTTP call, from sending to the last byte of the answer (SUPPLIER_TIMEOUT_MS). */
  timeoutMs: number;
}

const CREDENTIAL_TYPES: readonly CredentialType[] = ['text', 'url', 'barcode', 'date'];
/** Brand image sizes Tango publishes, in the order we prefer one for the catalog. */
const IMAGE_SIZES = ['300w-326ppi', '278w-326ppi', '200w-326ppi', '1200w-326ppi', '130w-326ppi', '80w-326ppi'];

/**
 * `SUPPLIER=tango`: Tango Card's RaaS API v2 (docs/suppliers.md).
 *
 * Our card id (letters and digits only) is sent as `externalRefID`, which Tango keeps unique per account: asking again with
 * the same id (after a timeout, a 5xx, a crash) returns the original order, never a second one.
 * Every failure is a SupplierError: permanent for a 4xx refusal of the order itself, transient for
 * timeouts, network errors, 408, 429 (with the Retry-After it gave), 5xx, and for 401, 402 and 403,
 * which refuse our account rather than the card.
 */
export class TangoSupplier implements GiftCardSupplier {
  private readonly logger = new Logger(TangoSupplier.name);
  private readonly authorization: string;
  private readonly api: string;

  constructor(private readonly options: TangoSupplierOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.platformName}:${options.platformKey}`, 'utf8').toString('base64')}`;
    this.api = `${options.baseUrl.replace(/\/+$/, '')}/raas/v2`;
  }

  async listCatalog(): Promise<SupplierBrand[]> {
    const catalog = await this.call<TangoCatalog>('GET', '/catalogs?verbose=true', 'catalog');
    if (!catalog || !Array.isArray(catalog.brands)) throw new SupplierError('Tango answered the catalog without brands.', false);
    return mapCatalog(catalog.brands, (reason) => this.logger.warn(reason));
  }

  async issueCard(request: IssueCardRequest): Promise<SupplierCard> {
    const cents = request.amountCents;
    if (!Number.isSafeInteger(cents) || cents <= 0) {
      throw new SupplierError(`Amount ${cents} is not a positive number of cents.`, true);
    }
    const body: TangoCreateOrderRequest = {
      accountIdentifier: this.options.accountIdentifier,
      customerIdentifier: this.options.customerIdentifier,
      amount: cents / 100,
      utid: request.utid,
      sendEmail: false,
      externalRefID: externalRefIdOf(request.reference),
    };
    const order = await this.call<TangoOrder>('POST', '/orders', 'order', body);
    return this.cardOf(order, request);
  }

  async getCard(reference: string): Promise<SupplierCard | null> {
    // The reference as we send it now, then as it was sent before ids were made alphanumeric, so a
    // card ordered before that change is found rather than ordered again.
    for (const externalRefID of new Set([externalRefIdOf(reference), reference])) {
      const query = new URLSearchParams({
        accountIdentifier: this.options.accountIdentifier,
        customerIdentifier: this.options.customerIdentifier,
        externalRefID,
      });
      const list = await this.call<TangoOrderList>('GET', `/orders?${query}`, 'order lookup');
      // Only an order that names this reference counts: a list that ignored the filter must not hand
      // us another card's order (a miss is safe: issuing again with the reference returns the order).
      const found = (list?.orders ?? []).find((order) => order.externalRefID === externalRefID);
      if (!found) continue;
      // List entries carry no reward; the order itself does.
      const order = await this.call<TangoOrder>('GET', `/orders/${encodeURIComponent(found.referenceOrderID)}`, 'order lookup');
      return this.cardOf(order, { reference });
    }
    return null;
  }

  private cardOf(order: TangoOrder, request: Partial<IssueCardRequest> & { reference: string }): SupplierCard {
    if (!order || typeof order.referenceOrderID !== 'string') {
      throw new SupplierError('Tango answered the order without a referenceOrderID.', false);
    }
    if (order.externalRefID !== undefined && order.externalRefID !== externalRefIdOf(request.reference) && order.externalRefID !== request.reference) {
      throw new SupplierError(`Tango answered order ${order.referenceOrderID} for ${order.externalRefID}, not ${request.reference}.`, false);
    }
    const denomination = order.denomination ?? order.amountCharged;
    const amountCents = typeof denomination?.value === 'number' ? Math.round(denomination.value * 100) : request.amountCents;
    // One externalRefID is one order, even for a different item (Tango documents this): a mismatch
    // means this reference already bought another card, and asking again will not change that.
    if (request.utid !== undefined && (order.utid !== request.utid || amountCents !== request.amountCents)) {
      throw new SupplierError(
        `Reference ${request.reference} was already used for order ${order.referenceOrderID} (${order.utid}, ${denomination?.value}).`,
        true,
      );
    }
    if (order.status !== 'COMPLETE') {
      // Not settled yet at Tango: the same externalRefID is asked again later.
      throw new SupplierError(`Tango order ${order.referenceOrderID} is ${order.status}, not COMPLETE.`, false);
    }
    return {
      reference: request.reference,
      utid: order.utid,
      amountCents: amountCents ?? 0,
      currency: (denomination?.currencyCode ?? request.currency ?? '').toUpperCase(),
      credentials: credentialsOf(order),
      redemptionInstructions: plainText(order.reward?.redemptionInstructions ?? ''),
    };
  }

  /** One HTTP call to Tango, its failures classified as SupplierErrors. Never logs the Authorization header. */
  private async call<T>(method: 'GET' | 'POST', path: string, what: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.api}${path}`, {
        method,
        headers: {
          authorization: this.authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw networkError(error, what, this.options.timeoutMs);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw networkError(error, what, this.options.timeoutMs);
    }
    if (response.ok) {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new SupplierError(`Tango answered the ${what} with ${response.status} and a body that is not JSON.`, false);
      }
    }
    const message = `Tango refused the ${what}: ${response.status} ${describeError(text)}`;
    if (response.status === 429 || response.status === 408 || response.status >= 500) {
      throw new SupplierError(message, false, retryAfterMs(response.headers.get('retry-after')));
    }
    if (OUR_ACCOUNT_REFUSED.includes(response.status)) {
      // Our credentials, permissions or funds at Tango, not the card: failing it would refund a
      // merchant's reward for our own lapse. The card waits (the circuit opens after a few of these)
      // until the account is mended (docs/suppliers.md, Errors).
      throw new SupplierError(`${message} (our Tango account: check TANGO_PLATFORM_NAME, TANGO_PLATFORM_KEY and its funds)`, false);
    }
    // Any other answer (a 4xx, or a 1xx/3xx Tango says it never sends) will not change on retry.
    throw new SupplierError(message, true);
  }
}

/**
 * Our reference (a card id, `card_` and random letters and digits) as Tango's `externalRefID`: its
 * letters and digits only, as Tango describes its ids. Dropping the fixed `_` keeps ids distinct.
 */
export function externalRefIdOf(reference: string): string {
  return reference.replace(/[^A-Za-z0-9]/g, '');
}

/** 401 (credentials), 402 (the platform's funds), 403 (permissions): about our account at Tango, not the order. */
const OUR_ACCOUNT_REFUSED = [401, 402, 403];

function networkError(error: unknown, what: string, timeoutMs: number): SupplierError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new SupplierError(`Tango did not answer the ${what} within ${timeoutMs} ms.`, false);
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return new SupplierError(`Tango could not be reached for the ${what}: ${cause?.code ?? cause?.message ?? String(error)}.`, false);
}

/** Tango's error body in one line: phrase, message and each field error, with the request id to quote to Tango. */
function describeError(text: string): string {
  let body: TangoErrorBody;
  try {
    body = JSON.parse(text) as TangoErrorBody;
  } catch {
    return text.slice(0, 200).replace(/\s+/g, ' ').trim() || '(no body)';
  }
  const parts = [body.httpPhrase, body.message].filter(Boolean);
  for (const error of Array.isArray(body.errors) ? body.errors : []) {
    parts.push([error.path, error.message].filter(Boolean).join(': ') + (error.i18nKey ? ` [${error.i18nKey}]` : ''));
  }
  if (body.i18nKey) parts.push(`[${body.i18nKey}]`);
  if (body.requestId) parts.push(`(request ${body.requestId})`);
  return parts.join('; ').slice(0, 500) || '(no details)';
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function credentialsOf(order: TangoOrder): CardCredential[] {
  const reward = order.reward ?? {};
  const list = Array.isArray(reward.credentialList) ? reward.credentialList : [];
  if (list.length > 0) {
    return list
      .filter((c) => typeof c.value === 'string' && c.value !== '')
      .map((c) => ({
        label: c.label || c.credentialType || 'Credential',
        value: c.value!,
        type: CREDENTIAL_TYPES.includes(c.type as CredentialType) ? (c.type as CredentialType) : 'text',
      }));
  }
  // The legacy label → value map, for an order whose reward has no credentialList: untyped values
  // are shown as text, except a link, which is shown as a link.
  return Object.entries(reward.credentials ?? {})
    .filter(([, value]) => typeof value === 'string' && value !== '')
    .map(([label, value]) => ({ label, value, type: /^https:\/\/\S+$/.test(value) ? 'url' : 'text' }));
}

/** Tango sends descriptions and instructions as HTML; we store and show plain text (our pages escape it). */
export function plainText(html: string): string {
  return html
    .replace(/\r/g, '')
    .replace(/<\s*br\s*\/?>[ \t]*\n?/gi, '\n')
    .replace(/<\/\s*(p|div|li|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&bull;/g, '•')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Tango's catalog as our brands and items. Only what can be ordered is kept: brands and items whose
 * status is `active`, with a known value type and sound values; the catalog sync marks whatever is
 * left out (including an item that stopped being active) inactive. Items in a currency the reading
 * wallet does not hold are filtered when the catalog is read, as for every supplier.
 */
export function mapCatalog(brands: TangoBrand[], skipped: (reason: string) => void = () => undefined): SupplierBrand[] {
  const seenBrands = new Set<string>();
  const seenItems = new Set<string>();
  const result: SupplierBrand[] = [];
  for (const brand of brands) {
    if (!brand || typeof brand.brandKey !== 'string' || brand.brandKey === '' || seenBrands.has(brand.brandKey)) continue;
    if (brand.status !== 'active') continue;
    const items: SupplierItem[] = [];
    for (const item of Array.isArray(brand.items) ? brand.items : []) {
      const mapped = mapItem(item);
      if (typeof mapped === 'string') {
        if (mapped) skipped(`Tango item ${item?.utid} of ${brand.brandKey} skipped: ${mapped}`);
        continue;
      }
      if (seenItems.has(mapped.utid)) continue;
      seenItems.add(mapped.utid);
      items.push(mapped);
    }
    if (items.length === 0) continue;
    seenBrands.add(brand.brandKey);
    result.push({
      brandKey: brand.brandKey,
      name: brand.brandName,
      description: plainText(brand.description ?? ''),
      shortDescription: plainText(brand.shortDescription ?? ''),
      disclaimer: [plainText(brand.disclaimer ?? ''), plainText(brand.terms ?? '')].filter(Boolean).join('\n\n'),
      imageUrl: imageOf(brand.imageUrls),
      // Tango's catalog models (docs/suppliers.md) publish no categories for a brand.
      categories: [],
      items,
    });
  }
  return result;
}

/** The item, or why it is left out ('' when it is simply not orderable). */
function mapItem(item: TangoItem): SupplierItem | string {
  if (!item || typeof item.utid !== 'string' || item.utid === '') return 'no utid';
  if (item.status !== 'active') return '';
  if (typeof item.currencyCode !== 'string' || !/^[A-Za-z]{3}$/.test(item.currencyCode)) return `currency ${item.currencyCode}`;
  const countries = (Array.isArray(item.countries) ? item.countries : []).filter((c) => typeof c === 'string' && /^[A-Za-z]{2}$/.test(c));
  const base = { utid: item.utid, rewardName: item.rewardName, currencyCode: item.currencyCode.toUpperCase(), countries };
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (item.valueType === 'FIXED_VALUE') {
    if (!positive(item.faceValue)) return `fixed value ${item.faceValue}`;
    return { ...base, valueType: 'FIXED_VALUE', faceValue: item.faceValue, minValue: null, maxValue: null };
  }
  if (item.valueType === 'VARIABLE_VALUE') {
    if (!positive(item.minValue) || !positive(item.maxValue) || item.maxValue < item.minValue) {
      return `range ${item.minValue}-${item.maxValue}`;
    }
    return { ...base, valueType: 'VARIABLE_VALUE', faceValue: null, minValue: item.minValue, maxValue: item.maxValue };
  }
  return `value type ${item.valueType}`;
}

function imageOf(urls: Record<string, string> | undefined): string {
  if (!urls || typeof urls !== 'object') return '';
  for (const size of IMAGE_SIZES) if (typeof urls[size] === 'string') return urls[size];
  return Object.values(urls).find((value) => typeof value === 'string') ?? '';
}
