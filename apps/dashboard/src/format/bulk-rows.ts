import type { components } from '@client/schema';
import { parseMajorUnits } from './parse-money';
import { parseCsv } from './csv';

/** A recipient language as the contract lists them; a cell with another value is passed on for the API's dry run to refuse. */
type RecipientLanguage = NonNullable<components['schemas']['RecipientDto']['language']>;

/** The columns of the bulk-send template, in order. */
export const BULK_COLUMNS = [
  'type',
  'email',
  'first_name',
  'last_name',
  'amount',
  'utid',
  'brand_keys',
  'expires_at',
  'message',
  'external_id',
  'campaign',
  'language',
] as const;

/** What the template needs to know of the catalog: brands with their items (a subset of the API's). */
export interface TemplateBrand {
  brandKey: string;
  items: { utid: string; currencyCode: string; valueType: string; faceValue: number | null; minValue: number | null; maxValue: number | null }[];
}

/**
 * The downloadable template: the header and one FIXED and one CHOICE example that work as they are
 * against the account's own catalog (a card and brands it offers in `currency`), so a first upload
 * of the unchanged file succeeds. Without a card in that currency the example rows name none.
 */
export function bulkTemplateRows(brands: readonly TemplateBrand[], currency: string): string[][] {
  const offering = brands.filter((b) => b.items.some((i) => i.currencyCode === currency));
  const items = offering.flatMap((b) => b.items.filter((i) => i.currencyCode === currency));
  const card = items.find((i) => i.valueType === 'FIXED_VALUE' && i.faceValue) ?? items.find((i) => i.minValue !== null);
  const cardAmount = card ? (card.valueType === 'FIXED_VALUE' ? card.faceValue! : Math.max(card.minValue ?? 0, Math.min(card.maxValue ?? 25, 25))) : 25;
  const choiceBrands = offering.slice(0, 2).map((b) => b.brandKey);
  // The CHOICE value must be one each named brand has a card for: the largest of their smallest cards.
  const choiceAmount = offering.slice(0, 2).reduce((most, b) => {
    const cheapest = b.items.filter((i) => i.currencyCode === currency).reduce((low, i) => Math.min(low, i.valueType === 'FIXED_VALUE' ? (i.faceValue ?? Infinity) : (i.minValue ?? Infinity)), Infinity);
    return Math.max(most, Number.isFinite(cheapest) ? cheapest : 0);
  }, 0);
  const expires = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10) + 'T12:00:00Z';
  return [
    [...BULK_COLUMNS],
    ['FIXED', 'ada@example.com', 'Ada', 'Lovelace', major(cardAmount), card?.utid ?? '', '', '', 'Thank you!', 'order-1001', 'spring', ''],
    ['CHOICE', 'amelie@example.com', 'Amélie', '', major(Math.max(choiceAmount, 10)), '', choiceBrands.join(';'), expires, 'Pick what you like', 'order-1002', 'spring', 'fr'],
  ];
}

/** 25 → "25.00" (catalog values are in major units). */
const major = (amount: number) => amount.toFixed(2);

export interface BulkReward {
  type: 'FIXED' | 'CHOICE';
  valueCents: number;
  /** `language`: the recipient's (docs/recipient-language.md), left to the API to check. */
  recipient: { email: string; firstName: string; lastName?: string; language?: RecipientLanguage };
  utid?: string;
  allowedBrandKeys?: string[];
  expiresAt?: string;
  message?: string;
  externalId?: string;
  campaign?: string;
}

/** A CSV row as the API request it stands for, or why it cannot be one (checked again by the API's dry run). */
export type BulkRow = { line: number; reward: BulkReward; error?: undefined } | { line: number; reward?: undefined; error: string };

/** Parses a bulk-send CSV with the template's header (columns in any order; unknown ones are an error). */
export function parseBulkCsv(text: string): BulkRow[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('The file is empty.');
  const names = header.map((h) => h.trim().toLowerCase());
  const unknown = names.filter((n) => !(BULK_COLUMNS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
  for (const required of ['type', 'email', 'first_name', 'amount']) {
    if (!names.includes(required)) throw new Error(`The column ${required} is missing.`);
  }
  return rows.map((cells, index) => {
    const line = index + 2;
    const get = (name: string) => (cells[names.indexOf(name)] ?? '').trim();
    const type = get('type').toUpperCase();
    if (type !== 'FIXED' && type !== 'CHOICE') return { line, error: 'type must be FIXED or CHOICE' };
    const valueCents = parseMajorUnits(get('amount'));
    if (valueCents === null || valueCents === 0) return { line, error: 'amount must be a positive amount such as 25 or 25.50' };
    const optional = (name: string) => get(name) || undefined;
    const brands = get('brand_keys')
      .split(/[;|]/)
      .map((k) => k.trim())
      .filter(Boolean);
    return {
      line,
      reward: {
        type,
        valueCents,
        recipient: { email: get('email'), firstName: get('first_name'), lastName: optional('last_name'), language: optional('language')?.toLowerCase() as RecipientLanguage | undefined },
        utid: optional('utid'),
        allowedBrandKeys: brands.length ? brands : undefined,
        expiresAt: optional('expires_at'),
        message: optional('message'),
        externalId: optional('external_id'),
        campaign: optional('campaign'),
      },
    };
  });
}
