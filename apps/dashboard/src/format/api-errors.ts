/**
 * The API's error texts are written for developers (field paths such as `recipient.email`, codes such
 * as `bad_request`); the dashboard shows merchants their own words instead (docs/dashboard.md, Errors).
 * A form names its fields by their visible labels (`FieldLabels`); known messages are reworded, and any
 * other keeps the server's text, without its code or "Invalid request:" prefix, after a plain sentence.
 */

/** A form's fields: API path (`issues[].path`) → the label the merchant sees. */
export type FieldLabels = Readonly<Record<string, string>>;

const PHONE_FORMAT = 'enter the number with + and the country code, e.g. +14155550123';

/** Known API messages (anchored on the words the API uses) and what a merchant reads instead. */
const RULES: readonly [RegExp, string | ((match: RegExpMatchArray) => string)][] = [
  [/must be an email/i, 'enter an e-mail address such as name@example.com'],
  [/at least 60 seconds in the future/i, 'choose a time at least a minute from now, or leave it empty to send now'],
  [/at most 365 days in the future/i, 'choose a time within a year from now'],
  [/must be later than deliverAt/i, 'choose an expiry after the delivery time'],
  [/must be in the future/i, 'choose a date and time in the future'],
  [/must be at most (\d+) days before/i, (m) => `choose a range of at most ${m[1]} days`],
  [/^must be before /i, 'choose a start before the end'],
  [/ascending order/i, 'list the days smallest first, each once, e.g. 3, 10'],
  [/should not be empty|must not be empty|is required/i, 'fill this in'],
  [/must use https/i, 'enter an address that starts with https://'],
  [/must not contain credentials/i, 'remove the user name and password from the address'],
  [/must not point at localhost|loopback|private|link-local|metadata|not publicly routable|does not resolve|could not be resolved/i,
    'enter a public address on the internet: local and private addresses cannot receive events'],
  [/must be an absolute URL|must be a URL|must name a host/i, 'enter a full address such as https://example.com/webhooks'],
  [/(?:at most|shorter than or equal to) (\d+) characters/i, (m) => `use at most ${m[1]} characters`],
  [/E\.164|phone number/i, PHONE_FORMAT],
  [/must be a positive|must not be less than 1|must be at least 1\b/i, 'enter an amount above zero'],
  [/must be another currency than the reward's/i, "choose a wallet in another currency, or pay from the reward's own wallet"],
  [/endpoint is paused/i, 'This endpoint is paused: resume it first.'],
  [/delivery is still pending/i, 'This delivery is still waiting for its next attempt, so it cannot be retried yet.'],
];

/** `bad_request: `, `validation: `, `skipped: ` and "Invalid request: " are for programs, not people. */
export function withoutCodePrefix(text: string): string {
  return text
    .replace(/^(?:[a-z]+_[a-z_]+|bad_request|validation|internal|forbidden|skipped|not_found):\s*/i, '')
    .replace(/^(?:[a-z]+_[a-z_]+|bad_request|validation|internal|forbidden|not_found):\s*/i, '')
    .replace(/^Invalid request:\s*/i, '')
    .replace(/^Malformed request body:\s*/i, '');
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const upper = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(upper) ? upper : `${upper}.`;
}

/** A field path no form labels, said in words: `recipient.firstName` → "recipient first name". */
export function humanPath(path: string): string {
  return path
    .replace(/\[(\d+)\]/g, ' $1')
    .split('.')
    .map((part) => part.replace(/Cents$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase())
    .join(' ');
}

/**
 * What is wrong with one field, in merchant words, as a sentence (shown beside the field and, after its
 * label, in the summary by the submit button).
 */
export function merchantIssue(message: string, path: string, labels: FieldLabels = {}): string {
  const text = withoutCodePrefix(message);
  for (const [pattern, words] of RULES) {
    const match = text.match(pattern);
    if (match) return sentence(typeof words === 'string' ? words : words(match));
  }
  // Unknown: the server's words, with the field's name said as the form says it.
  const named = text.replace(/^([A-Za-z][\w.[\]]*)\s(?=must|should|is|has)/, (_, field: string) => `${labels[field] ?? (field === path ? 'this' : humanPath(field))} `);
  return sentence(`Check this value: ${named}`);
}

/** A whole failed request (no field to show it by), in merchant words. */
export function merchantMessage(error: { status?: number; code?: string; message?: string } | null | undefined, labels: FieldLabels = {}): string {
  if (!error || typeof error.message !== 'string') return 'Something went wrong. Try again.';
  if (error.status === 429) return 'Too many attempts. Wait a minute and try again.';
  if (error.status !== undefined && error.status >= 500) return 'The service could not do this just now. Try again in a moment.';
  // The API's own sentence names the wallet and what it lacks: kept, without its code.
  if (error.code === 'insufficient_funds') return sentence(withoutCodePrefix(error.message)) || 'The wallet balance is too low for this.';
  if (error.code === 'forbidden') return "Your role does not allow this. Ask an admin or the account's owner.";
  return describeText(error.message, labels);
}

/**
 * A message that may list field issues (`Invalid request: path: message; path: message`, as a bulk
 * row's error carries them), each reworded and named by its label.
 */
export function describeText(raw: string, labels: FieldLabels = {}): string {
  const text = withoutCodePrefix(raw);
  // `path: message; path: message`, as the API lists field issues.
  const issues = text.split(/;\s+/).map((part) => part.match(/^([A-Za-z][\w.[\]]*):\s+(.+)$/));
  if (issues.every((issue) => issue !== null)) {
    return issues.map((issue) => `${labels[issue![1]] ?? sentence(humanPath(issue![1])).replace(/\.$/, '')}: ${merchantIssue(issue![2], issue![1], labels)}`).join(' ');
  }
  for (const [pattern, words] of RULES) {
    const match = text.match(pattern);
    if (match) return sentence(typeof words === 'string' ? words : words(match));
  }
  return sentence(`That did not go through: ${text}`);
}
