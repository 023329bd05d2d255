import type { DataSource } from 'typeorm';
import { SeededMerchant, seedMerchant, startTestApp, TestApp, TestAppOptions } from './test-app';

export interface CatalogPick {
  utid: string;
  brandKey: string;
  valueCents: number;
  minCents?: number;
  maxCents?: number;
}

export interface CatalogPicks {
  fixedUsd: CatalogPick;
  variableUsd: CatalogPick;
  fixedEur: CatalogPick;
  failingFixed: CatalogPick;
  failingVariable: CatalogPick;
  /** A USD brand that is not test-failure, for allowedBrandKeys. */
  usdBrandKey: string;
}

/** Items to send, taken from the live catalog over the API as a client would. */
export async function catalogPicks(t: TestApp, key: string): Promise<CatalogPicks> {
  const res = await t.api.as(key).get('/v1/catalog');
  const items = res.body.brands.flatMap((b: any) => b.items.map((i: any) => ({ ...i, brandKey: b.brandKey })));
  const pick = (predicate: (i: any) => boolean): CatalogPick => {
    const item = items.find(predicate);
    if (!item) throw new Error('catalog has no such item');
    return item.valueType === 'FIXED_VALUE'
      ? { utid: item.utid, brandKey: item.brandKey, valueCents: Math.round(item.faceValue * 100) }
      : {
          utid: item.utid,
          brandKey: item.brandKey,
          valueCents: Math.round(item.minValue * 100) + 100,
          minCents: Math.round(item.minValue * 100),
          maxCents: Math.round(item.maxValue * 100),
        };
  };
  const ok = (i: any) => i.brandKey !== 'test-failure';
  return {
    fixedUsd: pick((i) => ok(i) && i.currencyCode === 'USD' && i.valueType === 'FIXED_VALUE'),
    variableUsd: pick((i) => ok(i) && i.currencyCode === 'USD' && i.valueType === 'VARIABLE_VALUE'),
    fixedEur: pick((i) => i.currencyCode === 'EUR' && i.valueType === 'FIXED_VALUE'),
    failingFixed: pick((i) => i.brandKey === 'test-failure' && i.valueType === 'FIXED_VALUE'),
    failingVariable: pick((i) => i.brandKey === 'test-failure' && i.valueType === 'VARIABLE_VALUE'),
    usdBrandKey: pick((i) => ok(i) && i.currencyCode === 'USD').brandKey,
  };
}

/** Funds the wallet through the public top-up API (fake payments). */
export async function fund(t: TestApp, merchant: SeededMerchant, amountCents: number): Promise<void> {
  const res = await t.api.as(merchant.key).post('/v1/topups', { amountCents });
  expect(res.status).toBe(201);
}

let n = 0;
/** A test app and one merchant whose wallet holds `amountCents`: the set-up of a suite about one merchant. */
export async function startWithFundedMerchant(amountCents: number, options: TestAppOptions = {}): Promise<{ t: TestApp; m: SeededMerchant }> {
  const t = await startTestApp(options);
  const m = await seedMerchant(t);
  await fund(t, m, amountCents);
  return { t, m };
}

export function recipient(overrides: Record<string, unknown> = {}) {
  n += 1;
  return { email: `recipient${n}@example.test`, firstName: 'Ada', ...overrides };
}

export const choiceReward = (valueCents: number, extra: Record<string, unknown> = {}) => ({
  type: 'CHOICE',
  valueCents,
  recipient: recipient(),
  ...extra,
});

export const fixedReward = (item: CatalogPick, extra: Record<string, unknown> = {}) => ({
  type: 'FIXED',
  utid: item.utid,
  valueCents: item.valueCents,
  recipient: recipient(),
  ...extra,
});

export async function countRows(dataSource: DataSource, sql: string, params: unknown[]): Promise<number> {
  const [row] = await dataSource.query(`SELECT count(*)::int AS n FROM (${sql}) q`, params);
  return row.n;
}
