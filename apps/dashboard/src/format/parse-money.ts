/** "25", "25.5" or "25.50" (major units typed by a person) → 2550 cents; null when it is not an amount. */
export function parseMajorUnits(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
