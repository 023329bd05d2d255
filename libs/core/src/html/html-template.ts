/**
 * Server-rendered HTML (the OAuth pages, the redemption page, the e-mails) is written with the `html`
 * tagged template: every interpolated value is escaped unless it is already markup (`SafeHtml`), so
 * forgetting to escape is not possible and escaping twice does not happen (docs/html-templates.md).
 */
class Markup {
  constructor(private readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/** Markup made by `html`, `joinHtml` or `trustedHtml`; only this module can make one (the class is not exported). */
export type SafeHtml = Markup;

/**
 * What a template accepts: text (escaped), numbers, markup, and nothing (`null`, `undefined` or
 * `false` write nothing, so `${condition && html`...`}` reads naturally). Arrays are joined with no separator.
 */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for an element's content and for a quoted attribute value (not exported: write `html`). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Markup) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template whose interpolations are escaped, unless they are `SafeHtml` themselves. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0]!;
  values.forEach((value, i) => {
    markup += render(value) + strings[i + 1]!;
  });
  return new Markup(markup);
}

/**
 * Markup taken as it is, with no escaping: only for constants of our own (a style sheet, which must
 * not be escaped inside `<style>`). Never for anything a user, a merchant or a supplier wrote.
 */
export function trustedHtml(markup: string): SafeHtml {
  return new Markup(markup);
}

/** Fragments joined with a separator (itself literal markup, like `'\n'`). */
export function joinHtml(fragments: readonly HtmlValue[], separator: string): SafeHtml {
  return new Markup(fragments.map(render).join(separator));
}
