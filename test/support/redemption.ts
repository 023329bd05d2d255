import type { TestApp } from './test-app';

export interface RecipientResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** The token of a redemption URL (`{base}/r/{token}`). */
export function tokenOf(redemptionUrl: string): string {
  const token = /\/r\/([A-Za-z0-9]+)$/.exec(redemptionUrl)?.[1];
  if (!token) throw new Error(`not a redemption URL: ${redemptionUrl}`);
  return token;
}

/**
 * The recipient's side over real HTTP, with no credential. Not through ApiClient: the redemption
 * API is not part of the merchant contract in openapi.yaml.
 */
export class RecipientClient {
  constructor(private readonly t: TestApp) {}

  state(token: string) {
    return this.request('GET', `/r/${token}/api`);
  }

  page(token: string) {
    return this.request('GET', `/r/${token}`);
  }

  pick(token: string, body: { utid: string; amountCents: number }, idempotencyKey?: string) {
    return this.request('POST', `/r/${token}/api/cards`, body, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {});
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RecipientResponse> {
    const res = await fetch(`${this.t.baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text;
    return { status: res.status, headers: res.headers, body: json };
  }
}

export interface ChoicePair {
  fixed: { utid: string; brandKey: string; brandName: string; valueCents: number };
  variable: { utid: string; brandKey: string; brandName: string; minCents: number; maxCents: number };
}

/** A fixed USD item and a variable USD item (of other brands, not test-failure) that together can use exactly `totalCents`. */
export async function splittablePair(t: TestApp, key: string, totalCents: number): Promise<ChoicePair> {
  const res = await t.api.as(key).get('/v1/catalog?currency=USD');
  const items = res.body.brands.flatMap((b: any) =>
    b.brandKey === 'test-failure' ? [] : b.items.map((i: any) => ({ ...i, brandKey: b.brandKey, brandName: b.name })),
  );
  for (const f of items.filter((i: any) => i.valueType === 'FIXED_VALUE')) {
    const face = Math.round(f.faceValue * 100);
    const rest = totalCents - face;
    if (rest <= 0) continue;
    const v = items.find(
      (i: any) => i.valueType === 'VARIABLE_VALUE' && i.brandKey !== f.brandKey && Math.round(i.minValue * 100) <= rest && Math.round(i.maxValue * 100) >= rest,
    );
    if (v) {
      return {
        fixed: { utid: f.utid, brandKey: f.brandKey, brandName: f.brandName, valueCents: face },
        variable: { utid: v.utid, brandKey: v.brandKey, brandName: v.brandName, minCents: Math.round(v.minValue * 100), maxCents: Math.round(v.maxValue * 100) },
      };
    }
  }
  throw new Error(`no fixed + variable USD pair adds up to ${totalCents}`);
}
