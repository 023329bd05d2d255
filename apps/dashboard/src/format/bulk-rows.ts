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

export const BULK_TEMPLATE_ROWS = [
  [...BULK_COLUMNS],
  ['FIXED', 'ada@example.com', 'Ada', 'Lovelace', '25.00', 'U000101', '', '', 'Thank you!', 'order-1001', 'spring', ''],
  ['CHOICE', 'amelie@example.com', 'Amélie', '', '50', '', 'amazon;target', '2030-01-31T12:00:00Z', 'Pick what you like', 'order-1002', 'spring', 'fr'],
];

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
