import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The sandbox rate table as docs/currencies.md publishes it (Sandbox rates): what a merchant reads
 * there is what tests expect the service to apply. `table[from][to]` is the mid rate as written.
 */
export function publishedSandboxRates(): Record<string, Record<string, string>> {
  const page = readFileSync(join(__dirname, '../../docs/currencies.md'), 'utf8');
  const section = page.slice(page.indexOf('### Sandbox rates'));
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  const header = lines[0].split('|').slice(2, -1).map((cell) => cell.trim());
  const table: Record<string, Record<string, string>> = {};
  for (const line of lines.slice(2)) {
    const [from, ...cells] = line.split('|').slice(1, -1).map((cell) => cell.trim());
    if (!/^[A-Z]{3}$/.test(from)) break;
    table[from] = Object.fromEntries(header.map((to, i) => [to, cells[i]]).filter(([, rate]) => rate !== ''));
  }
  return table;
}

/** A decimal rate as an integer of 10^-8, as the service holds rates (independently written here). */
export function e8(rate: string | number): bigint {
  const [whole, fraction = ''] = String(rate).split('.');
  return BigInt(whole) * 100_000_000n + BigInt((fraction + '00000000').slice(0, 8));
}

/** ceil(toAmountCents / rate), in integers: what a quote must charge. */
export function expectedFromAmount(toAmountCents: number, rate: string | number): number {
  const r = e8(rate);
  return Number((BigInt(toAmountCents) * 100_000_000n + r - 1n) / r);
}

/** The merchant's rate: the mid rate less `bps` basis points, rounded down to 8 places, as a number. */
export function marked(mid: string, bps: number): number {
  const r = (e8(mid) * BigInt(10_000 - bps)) / 10_000n;
  return Number(`${r / 100_000_000n}.${(r % 100_000_000n).toString().padStart(8, '0')}`);
}
