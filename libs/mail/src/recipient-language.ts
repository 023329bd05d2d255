import { joinHtml, type SafeHtml } from '@app/core';
import de from './locales/de.json';
import en from './locales/en.json';
import es from './locales/es.json';
import fr from './locales/fr.json';
import it from './locales/it.json';
import nl from './locales/nl.json';
import pt from './locales/pt.json';

/**
 * The languages a recipient can be addressed in (docs/recipient-language.md). Each has one catalogue
 * of texts, `locales/<code>.json`, which translators edit; English is the reference every other
 * catalogue must match key for key and placeholder for placeholder (recipient-language.spec.ts).
 */
export const RECIPIENT_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] as const;
export type RecipientLanguage = (typeof RECIPIENT_LANGUAGES)[number];
export const DEFAULT_RECIPIENT_LANGUAGE: RecipientLanguage = 'en';

export type Catalogue = typeof en;
export const CATALOGUES: Record<RecipientLanguage, Catalogue> = { en, es, fr, de, it, pt, nl };

/** The locale dates and amounts are formatted in, per language (docs/recipient-language.md, Formats). */
const LOCALES: Record<RecipientLanguage, string> = { en: 'en-US', es: 'es-ES', fr: 'fr-FR', de: 'de-DE', it: 'it-IT', pt: 'pt-BR', nl: 'nl-NL' };

export function isRecipientLanguage(value: unknown): value is RecipientLanguage {
  return typeof value === 'string' && (RECIPIENT_LANGUAGES as readonly string[]).includes(value);
}

type Section = keyof Catalogue;
type Params = Record<string, string | number>;

const PLACEHOLDER = /\{([a-zA-Z]+)\}/g;

/** The texts of one language, with its number and date formats: what a template needs to speak to the recipient. */
export class RecipientTexts {
  readonly locale: string;
  private readonly catalogue: Catalogue;
  private readonly moneyFormats = new Map<string, Intl.NumberFormat>();
  private readonly dateFormat: Intl.DateTimeFormat;
  private readonly dateTimeFormat: Intl.DateTimeFormat;
  private readonly instantFormat: Intl.DateTimeFormat;

  constructor(readonly language: RecipientLanguage) {
    this.locale = LOCALES[language];
    this.catalogue = CATALOGUES[language];
    // Dates are days (an expiry, a card's date): shown in UTC, as the API states them.
    this.dateFormat = new Intl.DateTimeFormat(this.locale, { dateStyle: 'long', timeZone: 'UTC' });
    // An instant (a scheduled send's delivery time): its day and time in UTC, the texts say so.
    this.dateTimeFormat = new Intl.DateTimeFormat(this.locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
    // A deadline (an expiry): the recipient's zone is unknown, so its day and time in UTC, the zone named in the value itself.
    this.instantFormat = new Intl.DateTimeFormat(this.locale, {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZone: 'UTC',
      timeZoneName: 'short',
    });
  }

  /** The text `section.key` with its `{placeholders}` filled in. */
  t<S extends Section>(section: S, key: keyof Catalogue[S], params: Params = {}): string {
    return (this.catalogue[section][key] as string).replace(PLACEHOLDER, (whole, name: string) => (name in params ? String(params[name]) : whole));
  }

  /** The same as markup: the text escaped, each placeholder filled with text (escaped) or markup (kept). */
  html<S extends Section>(section: S, key: keyof Catalogue[S], params: Record<string, string | number | SafeHtml> = {}): SafeHtml {
    const template = this.catalogue[section][key] as string;
    const parts: (string | number | SafeHtml)[] = [];
    let last = 0;
    for (const match of template.matchAll(PLACEHOLDER)) {
      parts.push(template.slice(last, match.index));
      parts.push(match[1]! in params ? params[match[1]!]! : match[0]);
      last = match.index! + match[0].length;
    }
    parts.push(template.slice(last));
    return joinHtml(parts, '');
  }

  /** A whole section, for the page's script (it formats its own messages). */
  section<S extends Section>(section: S): Catalogue[S] {
    return this.catalogue[section];
  }

  /** Cents of `currency` as people of this language read them (`12,50 €` in French). */
  money(cents: number, currency: string): string {
    let format = this.moneyFormats.get(currency);
    if (!format) {
      format = new Intl.NumberFormat(this.locale, { style: 'currency', currency });
      this.moneyFormats.set(currency, format);
    }
    return format.format(cents / 100);
  }

  /** A day, e.g. `31 décembre 2030`. */
  date(value: Date | string): string {
    return this.dateFormat.format(typeof value === 'string' ? new Date(value) : value);
  }

  /** A deadline as its day and time of day in UTC, the zone named: `31 décembre 2030 à 23:59 UTC`, `December 31, 2030 at 11:59 PM UTC`. */
  instant(value: Date | string): string {
    return this.instantFormat.format(typeof value === 'string' ? new Date(value) : value);
  }

  /** An instant as a day and a time of day, in UTC (the text around it says UTC). */
  dateTime(value: Date | string): string {
    return this.dateTimeFormat.format(typeof value === 'string' ? new Date(value) : value);
  }
}

const TEXTS = new Map<RecipientLanguage, RecipientTexts>();

/** The texts of `language`; English when none is given. */
export function recipientTexts(language: string | null | undefined): RecipientTexts {
  const code = isRecipientLanguage(language) ? language : DEFAULT_RECIPIENT_LANGUAGE;
  let texts = TEXTS.get(code);
  if (!texts) {
    texts = new RecipientTexts(code);
    TEXTS.set(code, texts);
  }
  return texts;
}

/** The placeholders a text names, sorted (the catalogue test compares them across languages). */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!).sort();
}
