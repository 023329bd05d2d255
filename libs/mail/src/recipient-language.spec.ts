import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { placeholdersOf, RECIPIENT_LANGUAGES, recipientTexts } from './recipient-language';

const LOCALES_DIR = join(__dirname, 'locales');

/** Every text of a catalogue by its dotted key (`email.subjectFixed`), read from the file as a translator leaves it. */
function flatten(value: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) {
      for (const [k, v] of flatten(inner, prefix ? `${prefix}.${key}` : key)) out.set(k, v);
    }
  } else {
    out.set(prefix, value);
  }
  return out;
}

const read = (language: string) => flatten(JSON.parse(readFileSync(join(LOCALES_DIR, `${language}.json`), 'utf8')));
const reference = read('en');

describe('recipient language catalogues', () => {
  it('there is one catalogue per supported language, and no other', () => {
    const files = readdirSync(LOCALES_DIR).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
    expect(files).toEqual([...RECIPIENT_LANGUAGES].sort());
  });

  describe.each(RECIPIENT_LANGUAGES.filter((l) => l !== 'en'))('%s', (language) => {
    const catalogue = read(language);

    it('has every key of the English catalogue and no other', () => {
      const missing = [...reference.keys()].filter((key) => !catalogue.has(key));
      const extra = [...catalogue.keys()].filter((key) => !reference.has(key));
      expect({ missing, extra }).toEqual({ missing: [], extra: [] });
    });

    it('each text is a non-empty string with the same placeholders as the English one', () => {
      const wrong: string[] = [];
      for (const [key, english] of reference) {
        const text = catalogue.get(key);
        if (typeof text !== 'string' || text.trim() === '') wrong.push(`${key}: not a text`);
        else if (placeholdersOf(text).join() !== placeholdersOf(String(english)).join()) {
          wrong.push(`${key}: {${placeholdersOf(text).join('}, {')}} where English has {${placeholdersOf(String(english)).join('}, {')}}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  });

  it('fills placeholders and formats money and dates for the language', () => {
    const fr = recipientTexts('fr');
    expect(fr.t('email', 'subjectChoice', { sender: 'Acme', value: fr.money(5000, 'EUR') })).toBe('Acme vous a envoyé une récompense de 50,00\u00a0€');
    expect(recipientTexts('de').date('2030-12-31T23:59:59Z')).toBe('31. Dezember 2030');
    expect(recipientTexts(null).money(1250, 'USD')).toBe('$12.50');
    expect(recipientTexts('xx').language).toBe('en');
  });

  it('an expiry reads as its day and time in UTC, the zone named, in every language', () => {
    const at = '2026-12-03T13:00:00Z';
    const useBy = Object.fromEntries(RECIPIENT_LANGUAGES.map((l) => [l, recipientTexts(l).t('email', 'useBy', { date: recipientTexts(l).instant(at) })]));
    expect(useBy).toEqual({
      en: 'Use it by December 3, 2026 at 1:00 PM UTC.',
      es: 'Puedes usarla hasta el 3 de diciembre de 2026 a las 13:00 UTC.',
      fr: 'À utiliser au plus tard le 3 décembre 2026 à 13:00 UTC.',
      de: 'Einzulösen bis zum 3. Dezember 2026 um 13:00 UTC.',
      it: 'Usalo entro il 3 dicembre 2026 alle ore 13:00 UTC.',
      pt: 'Use até 3 de dezembro de 2026 às 13:00 UTC.',
      nl: 'Te gebruiken tot 3 december 2026 om 13:00 UTC.',
    });
  });

  it('escapes the text and the placeholders of markup, but keeps markup passed in', () => {
    const en = recipientTexts('en');
    expect(en.html('email', 'greeting', { name: '<b>Ada</b>' }).toString()).toBe('Hi &lt;b&gt;Ada&lt;/b&gt;,');
  });
});
