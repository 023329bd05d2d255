/**
 * Whether a card matches what was typed in the card picker (docs/dashboard.md, Widgets from kept
 * libraries): every word typed appears somewhere in `text` (the card's brand name, brand key, card
 * name, currency and utid), case ignored, so "amazon 25" and "u1000" both find a card. Nothing typed
 * matches every card.
 */
export function cardMatches(text: string, search: string): boolean {
  const haystack = text.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}
