import { createHash, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TangoBrand, TangoCatalog, TangoErrorBody, TangoItem, TangoOrder } from '../../libs/catalog/src/supplier/tango/tango-wire';
import type { TangoExchangeRate, TangoExchangeRateResponse } from '../../libs/fx/src/rates/tango-rates-wire';

export interface TangoRecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: unknown;
}

/**
 * What the next matching requests get instead of a normal answer:
 * - `hang`: no answer at all (the caller's timeout fires); with `afterOrder` the order is placed
 *   first, as when Tango took it but the answer was lost on the way;
 * - `status`: that HTTP status with Tango's error body (and `retryAfter` as a Retry-After header);
 *   with `afterOrder` the order is placed first (Tango documents that a 5xx order may still go through).
 */
export type TangoFault =
  | { kind: 'hang'; afterOrder?: boolean }
  | { kind: 'status'; status: number; retryAfter?: string; afterOrder?: boolean; i18nKey?: string; message?: string };

export const TANGO_DOUBLE_CREDENTIALS = {
  TANGO_PLATFORM_NAME: 'RewardsTestPlatform',
  TANGO_PLATFORM_KEY: 'double-platform-key-5f0c',
  TANGO_CUSTOMER_IDENTIFIER: 'rewards-customer',
  TANGO_ACCOUNT_IDENTIFIER: 'rewards-account',
};

const ORDER_FIELDS: Record<string, 'string' | 'number' | 'boolean' | 'object'> = {
  accountIdentifier: 'string',
  amount: 'number',
  campaign: 'string',
  customerIdentifier: 'string',
  emailSubject: 'string',
  etid: 'string',
  externalRefID: 'string',
  message: 'string',
  notes: 'string',
  recipient: 'object',
  sendEmail: 'boolean',
  sender: 'object',
  utid: 'string',
};
const REQUIRED_ORDER_FIELDS = ['accountIdentifier', 'amount', 'customerIdentifier', 'sendEmail', 'utid'];
const NAME_EMAIL_FIELDS = ['email', 'firstName', 'lastName'];

const img = (key: string) =>
  Object.fromEntries(['80w', '130w', '200w', '278w', '300w', '1200w'].map((w) => [`${w}-326ppi`, `https://images.tango.example/brands/${key}-${w}-326ppi.png`]));

/** A small catalog in Tango's shape: orderable items, an inactive item, an inactive brand, odd value types. */
export function defaultTangoCatalog(): TangoBrand[] {
  const item = (utid: string, fields: Pick<TangoItem, 'rewardName' | 'valueType'> & Partial<TangoItem>): TangoItem => ({
    utid,
    rewardType: 'gift card',
    status: 'active',
    countries: ['US'],
    currencyCode: 'USD',
    credentialTypes: ['cardNumber', 'pin', 'redemptionUrl', 'expirationDate'],
    redemptionInstructions: '<p>Redeem online.</p>',
    createdDate: '2016-07-27T02:54:30.142Z',
    lastUpdateDate: '2023-09-21T20:59:01.874Z',
    ...fields,
  });
  return [
    {
      brandKey: 'B916708',
      brandName: 'Amazon.com',
      description: '<p>Amazon.com Gift Cards never expire &amp; can be redeemed towards millions of items.</p>',
      shortDescription: 'Shop millions of items.',
      disclaimer: '<p>Amazon.com is not a sponsor of the promotion.</p>',
      terms: '<p>Restrictions apply, see amazon.com/gc-legal.</p>',
      imageUrls: img('b916708'),
      status: 'active',
      createdDate: '2016-06-17T16:52:24Z',
      lastUpdateDate: '2017-10-23T22:18:51Z',
      items: [
        item('U666425', { rewardName: 'Amazon.com Gift Card', valueType: 'VARIABLE_VALUE', minValue: 0.01, maxValue: 2000 }),
        item('U100025', { rewardName: 'Amazon.com Gift Card $25.00', valueType: 'FIXED_VALUE', faceValue: 25 }),
        item('U100099', { rewardName: 'Amazon.com Gift Card $99.00', valueType: 'FIXED_VALUE', faceValue: 99, status: 'inactive' }),
      ],
    },
    {
      brandKey: 'B725361',
      brandName: 'AMC Theatres®',
      description: 'Movie tickets and concessions.',
      shortDescription: 'Movies.',
      disclaimer: 'AMC is not a sponsor.',
      terms: '',
      imageUrls: img('b725361'),
      status: 'active',
      items: [
        item('U154092', { rewardName: 'AMC® Gift Card $10.00', valueType: 'FIXED_VALUE', faceValue: 10 }),
        item('U913336', { rewardName: 'AMC® Gift Card €25.00', valueType: 'FIXED_VALUE', faceValue: 25, currencyCode: 'EUR', countries: ['DE', 'FR'] }),
        item('U555000', { rewardName: 'AMC® Points', valueType: 'POINTS', faceValue: 10 }),
      ],
    },
    {
      brandKey: 'B000404',
      brandName: 'Gone Retail',
      description: 'A brand Tango no longer offers.',
      shortDescription: '',
      disclaimer: '',
      terms: '',
      imageUrls: img('b000404'),
      status: 'inactive',
      items: [item('U404404', { rewardName: 'Gone Retail $10.00', valueType: 'FIXED_VALUE', faceValue: 10 })],
    },
  ];
}

/**
 * Exchange rates in Tango's shape (ExchangeRate: units of `rewardCurrency` per one `baseCurrency`),
 * last modified `modifiedAt`: USD to the others, and one EUR base rate besides.
 */
export function defaultTangoExchangeRates(modifiedAt = new Date()): TangoExchangeRate[] {
  const rate = (baseCurrency: string, rewardCurrency: string, baseFx: number): TangoExchangeRate => ({
    lastModifiedDate: modifiedAt.toISOString(),
    rewardCurrency,
    baseCurrency,
    baseFx,
  });
  return [rate('USD', 'EUR', 0.9231), rate('USD', 'GBP', 0.7912), rate('USD', 'CAD', 1.3599), rate('EUR', 'USD', 1.0833)];
}

/**
 * A local stand-in for the part of Tango Card's RaaS API v2 we call, on its wire format (docs/suppliers.md):
 * Basic authentication with the platform name and key; `GET /raas/v2/catalogs`; `POST /raas/v2/orders`
 * checking field names and types like Tango's validation (unknown, missing or mistyped fields, wrong
 * account or customer, unknown or inactive utid, amount not allowed by the item: 400 with Tango's
 * error body), answering a repeated `externalRefID` with the original order (200, no second order);
 * `GET /raas/v2/orders?externalRefID=` and `GET /raas/v2/orders/{referenceOrderID}`; `GET /raas/v2/exchangerates`
 * (with its `baseCurrency` / `rewardCurrency` filters, each a comma-separated list), or any body set as
 * `exchangeRatesBody` (garbage, for the adapter's sake). Faults on demand.
 */
export class TangoDouble {
  readonly requests: TangoRecordedRequest[] = [];
  /** Orders placed, by referenceOrderID, in order. */
  readonly orders = new Map<string, TangoOrder>();
  brands: TangoBrand[] = defaultTangoCatalog();
  exchangeRates: TangoExchangeRate[] = defaultTangoExchangeRates();
  /** When set, `GET /exchangerates` answers exactly this text (status 200), whatever it is. */
  exchangeRatesBody: string | undefined;
  private readonly byExternalRef = new Map<string, string>();
  private readonly faults: { route: string; fault: TangoFault }[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;
  private sequence = 0;

  constructor(readonly credentials = TANGO_DOUBLE_CREDENTIALS) {}

  /** The base URL to give as TANGO_BASE_URL (a host, without /raas/v2). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => this.handle(req, res, raw));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `count` requests to `route` (e.g. 'POST /orders', 'GET /catalogs', 'GET /exchangerates') get `fault`. */
  failNext(count: number, fault: TangoFault, route = 'POST /orders'): void {
    for (let i = 0; i < count; i += 1) this.faults.push({ route, fault });
  }

  /** Requests for the exchange rates (whatever their answer). */
  exchangeRateRequests(): TangoRecordedRequest[] {
    return this.requests.filter((r) => r.method === 'GET' && r.path === '/raas/v2/exchangerates');
  }

  /** Requests that asked to place an order (whatever their answer). */
  orderRequests(): TangoRecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/raas/v2/orders');
  }

  /** Requests that looked an order up by our reference (GET /orders?externalRefID=). */
  lookupsOf(externalRefID: string): TangoRecordedRequest[] {
    return this.requests.filter((r) => r.method === 'GET' && r.path === '/raas/v2/orders' && r.query.get('externalRefID') === externalRefID);
  }

  ordersFor(externalRefID: string): TangoOrder[] {
    return [...this.orders.values()].filter((o) => o.externalRefID === externalRefID);
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url!, 'http://double');
    const path = url.pathname;
    let body: unknown = undefined;
    let malformed = false;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        malformed = true;
      }
    }
    this.requests.push({ method: req.method!, path, query: url.searchParams, authorization: req.headers.authorization, body });
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': randomUUID(), ...headers });
      res.end(JSON.stringify(payload));
    };
    const fail = (status: number, phrase: string, extra: Partial<TangoErrorBody> = {}, headers?: Record<string, string>) =>
      reply(status, { timestamp: new Date().toISOString(), requestId: randomUUID(), path, httpCode: status, httpPhrase: phrase, ...extra }, headers);

    const expected = `Basic ${Buffer.from(`${this.credentials.TANGO_PLATFORM_NAME}:${this.credentials.TANGO_PLATFORM_KEY}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      return fail(401, 'Unauthorized', { i18nKey: '401.001', message: 'Full authentication is required to access this resource' });
    }
    if (!path.startsWith('/raas/v2/')) return fail(404, 'Not Found', { message: `No route for ${req.method} ${path}` });
    const route = `${req.method} ${path.slice('/raas/v2'.length).replace(/^\/orders\/[^/]+$/, '/orders/{id}')}`;

    const faultIndex = this.faults.findIndex((f) => f.route === route);
    const fault = faultIndex >= 0 ? this.faults.splice(faultIndex, 1)[0].fault : undefined;
    if (fault && !fault.afterOrder) return this.applyFault(fault, res, fail);

    if (route === 'GET /exchangerates') {
      if (this.exchangeRatesBody !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(this.exchangeRatesBody);
        return;
      }
      const filter = (name: string) => url.searchParams.get(name)?.split(',').filter(Boolean);
      const bases = filter('baseCurrency');
      const rewards = filter('rewardCurrency');
      const answer: TangoExchangeRateResponse = {
        disclaimer: 'Exchange rates are provided here for reference. They are updated at least once a day and may have changed by time of order.',
        exchangeRates: this.exchangeRates.filter((r) => (!bases || bases.includes(r.baseCurrency)) && (!rewards || rewards.includes(r.rewardCurrency))),
      };
      return reply(200, answer);
    }
    if (route === 'GET /catalogs') {
      const catalog: TangoCatalog = { catalogName: 'Rewards Test Catalog', brands: this.brands };
      return reply(200, catalog);
    }
    if (route === 'POST /orders') {
      if (malformed || typeof body !== 'object' || body === null || Array.isArray(body)) {
        return fail(400, 'Bad Request', { i18nKey: '400.001', message: 'Malformed JSON request' });
      }
      const errors = this.validateOrder(body as Record<string, unknown>);
      if (errors.length > 0) return fail(400, 'Bad Request', { errors });
      const { status, order } = this.placeOrder(body as Record<string, any>);
      if (fault) return this.applyFault(fault, res, fail);
      return reply(status, order);
    }
    if (route === 'GET /orders') {
      const externalRefID = url.searchParams.get('externalRefID');
      const account = url.searchParams.get('accountIdentifier');
      const orders = [...this.orders.values()]
        .filter((o) => externalRefID === null || o.externalRefID === externalRefID)
        .filter((o) => account === null || o.accountIdentifier === account)
        .map(({ reward: _reward, ...listed }) => listed);
      return reply(200, { page: { number: 0, elementsPerBlock: 10, resultCount: orders.length, totalCount: orders.length }, orders });
    }
    if (route === 'GET /orders/{id}') {
      const order = this.orders.get(decodeURIComponent(path.split('/').pop()!));
      if (!order) return fail(404, 'Not Found', { i18nKey: '404.002', message: 'Order not found' });
      return reply(200, order);
    }
    return fail(404, 'Not Found', { message: `No route for ${req.method} ${path}` });
  }

  private applyFault(fault: TangoFault, res: ServerResponse, fail: (s: number, p: string, e?: Partial<TangoErrorBody>, h?: Record<string, string>) => void): void {
    if (fault.kind === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const phrases: Record<number, string> = { 400: 'Bad Request', 402: 'Payment Required', 403: 'Forbidden', 408: 'Request Timeout', 409: 'Conflict', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
    fail(
      fault.status,
      phrases[fault.status] ?? 'Error',
      { i18nKey: fault.i18nKey ?? `${fault.status}.000`, message: fault.message ?? `double fault ${fault.status}` },
      fault.retryAfter ? { 'retry-after': fault.retryAfter } : undefined,
    );
  }

  private validateOrder(body: Record<string, unknown>): NonNullable<TangoErrorBody['errors']> {
    const errors: NonNullable<TangoErrorBody['errors']> = [];
    const error = (path: string, message: string, constraint: string, invalidValue?: unknown) =>
      errors.push({ path, i18nKey: '422.000', message, constraint, invalidValue: invalidValue === undefined ? undefined : String(invalidValue) });
    for (const [field, value] of Object.entries(body)) {
      const type = ORDER_FIELDS[field];
      if (!type) error(field, 'unrecognized field', 'UnrecognizedProperty');
      else if (value !== null && (typeof value !== type || (type === 'object' && Array.isArray(value)))) error(field, `must be a ${type}`, 'Type', value);
    }
    for (const field of REQUIRED_ORDER_FIELDS) if (body[field] === undefined || body[field] === null) error(field, 'may not be null', 'NotNull');
    // Tango describes its ids as up to 100 alphanumeric characters; the double holds us to that.
    if (typeof body.externalRefID === 'string' && !/^[A-Za-z0-9]{1,100}$/.test(body.externalRefID)) {
      error('externalRefID', 'must be up to 100 alphanumeric characters', 'Pattern', body.externalRefID);
    }
    for (const person of ['recipient', 'sender']) {
      const value = body[person];
      if (value && typeof value === 'object') {
        for (const key of Object.keys(value)) if (!NAME_EMAIL_FIELDS.includes(key)) error(`${person}.${key}`, 'unrecognized field', 'UnrecognizedProperty');
      }
    }
    if (errors.length > 0) return errors;
    if (body.accountIdentifier !== this.credentials.TANGO_ACCOUNT_IDENTIFIER) error('accountIdentifier', 'account not found', 'Exists', body.accountIdentifier);
    if (body.customerIdentifier !== this.credentials.TANGO_CUSTOMER_IDENTIFIER) error('customerIdentifier', 'customer not found', 'Exists', body.customerIdentifier);
    if (typeof body.externalRefID === 'string' && (body.externalRefID.length === 0 || body.externalRefID.length > 100)) {
      error('externalRefID', 'size must be between 1 and 100', 'Size', body.externalRefID);
    }
    if (body.sendEmail === true) {
      const recipient = (body.recipient ?? {}) as Record<string, unknown>;
      if (!recipient.email) error('recipient.email', 'required if sendEmail is true', 'NotNull');
      if (!recipient.firstName) error('recipient.firstName', 'required if sendEmail is true', 'NotNull');
    }
    // A repeated externalRefID answers the original order, whatever item this request names.
    if (typeof body.externalRefID === 'string' && this.byExternalRef.has(body.externalRefID)) return errors;
    const item = this.brands.filter((b) => b.status === 'active').flatMap((b) => b.items).find((i) => i.utid === body.utid && i.status === 'active');
    if (!item) {
      error('utid', 'item not found or not available', 'Exists', body.utid);
      return errors;
    }
    const amount = body.amount as number;
    if (!(amount > 0) || Math.round(amount * 100) / 100 !== amount) error('amount', 'must be a positive amount with at most 2 decimals', 'Amount', amount);
    else if (item.valueType === 'FIXED_VALUE' && amount !== item.faceValue) error('amount', `must be ${item.faceValue} for this item`, 'FaceValue', amount);
    else if (item.valueType === 'VARIABLE_VALUE' && (amount < item.minValue! || amount > item.maxValue!)) {
      error('amount', `must be between ${item.minValue} and ${item.maxValue}`, 'Range', amount);
    }
    return errors;
  }

  private placeOrder(body: Record<string, any>): { status: number; order: TangoOrder } {
    const existing = typeof body.externalRefID === 'string' ? this.byExternalRef.get(body.externalRefID) : undefined;
    if (existing) return { status: 200, order: this.orders.get(existing)! };
    const item = this.brands.flatMap((b) => b.items).find((i) => i.utid === body.utid)!;
    this.sequence += 1;
    const referenceOrderID = `RA${String(this.sequence).padStart(6, '0')}-${randomUUID().slice(0, 4)}`;
    const digest = createHash('sha256').update(referenceOrderID).digest('hex');
    const code = digest.slice(0, 16).toUpperCase().match(/.{4}/g)!.join('-');
    const redemptionUrl = `https://sandbox.rewardlink.example/r/${digest.slice(16, 40)}`;
    const order: TangoOrder & Record<string, unknown> = {
      referenceOrderID,
      customerIdentifier: body.customerIdentifier,
      accountIdentifier: body.accountIdentifier,
      accountNumber: 'A32386768',
      amountCharged: { value: body.amount, currencyCode: item.currencyCode, exchangeRate: 1, fee: 0, total: body.amount },
      denomination: { value: body.amount, currencyCode: item.currencyCode },
      utid: body.utid,
      rewardName: item.rewardName,
      sender: { firstName: '', lastName: '', email: '' },
      recipient: { firstName: '', lastName: '', email: '' },
      sendEmail: body.sendEmail,
      status: 'COMPLETE',
      createdAt: new Date().toISOString(),
      ...(body.externalRefID !== undefined ? { externalRefID: body.externalRefID } : {}),
      reward: {
        credentials: { 'Card Number': code, PIN: digest.slice(40, 44), 'Redemption Link': redemptionUrl, 'Expiration Date': '2031-06-30T00:00:00Z' },
        credentialList: [
          { label: 'Card Number', value: code, type: 'text', credentialType: 'cardNumber' },
          { label: 'PIN', value: digest.slice(40, 44), type: 'text', credentialType: 'pin' },
          { label: 'Redemption Link', value: redemptionUrl, type: 'url', credentialType: 'redemptionUrl' },
          { label: 'Barcode', value: `https://barcodes.tango.example/${digest.slice(44, 56)}.png`, type: 'barcode', credentialType: 'barcode' },
          { label: 'Expiration Date', value: '2031-06-30T00:00:00Z', type: 'date', credentialType: 'expirationDate' },
        ],
        redemptionInstructions: '<p>&bull; Click the redemption link above.<br />\r\n&bull; Enter the card number and PIN at checkout.</p>',
      },
    };
    this.orders.set(referenceOrderID, order);
    if (typeof body.externalRefID === 'string') this.byExternalRef.set(body.externalRefID, referenceOrderID);
    return { status: 201, order };
  }
}
