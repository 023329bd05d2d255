import { describe, expect, it } from 'vitest';
import { cardMatches } from './card-search';

const amazon25 = 'U100025 Amazon.com B916708 Amazon.com $25 Gift Card USD';

describe('card picker search', () => {
  it('finds a card by part of its name, its brand, its currency or its utid, case ignored', () => {
    for (const search of ['amaz', 'Gift CARD', 'b916708', 'usd', 'u100025', '$25']) expect({ search, match: cardMatches(amazon25, search) }).toEqual({ search, match: true });
  });

  it('needs every word typed, in any order', () => {
    expect(cardMatches(amazon25, 'card amazon')).toBe(true);
    expect(cardMatches(amazon25, 'amazon eur')).toBe(false);
    expect(cardMatches(amazon25, 'U100099')).toBe(false);
  });

  it('matches everything while nothing (or only spaces) is typed', () => {
    expect(cardMatches(amazon25, '')).toBe(true);
    expect(cardMatches(amazon25, '   ')).toBe(true);
  });
});
