import { buildMessage, ValidateBy, ValidationOptions } from 'class-validator';

/**
 * C0 control characters (U+0000-U+001F) and DEL (U+007F). No name, identifier, e-mail address or URL
 * has a use for them, and in a name they end up in e-mail headers, HTML and CSV exports, where a line
 * break or an escape sequence does damage (docs/errors.md, Control characters).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001F\u007F]/;
/** The same, except tab, line feed and carriage return, which free text (a message, a description) may hold. */
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export interface ControlCharacterRule {
  /** Free text: tab, line feed and carriage return are allowed. */
  allowLineBreaks?: boolean;
}

/** Why `value` is refused, or null when it holds no control character the rule forbids. */
export function controlCharacterProblem(value: string, rule: ControlCharacterRule = {}): string | null {
  const forbidden = rule.allowLineBreaks ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL;
  if (!forbidden.test(value)) return null;
  return rule.allowLineBreaks
    ? 'must not contain control characters other than tab and line breaks (U+0000-U+001F, U+007F)'
    : 'must not contain control characters (U+0000-U+001F, U+007F)';
}

/**
 * Refuses a string holding a C0 control character or DEL (with `allowLineBreaks`, tab, line feed and
 * carriage return are allowed). Non-strings pass: the field's type decorator reports those.
 */
export function NoControlCharacters(rule: ControlCharacterRule = {}, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: rule.allowLineBreaks ? 'noControlCharactersButLineBreaks' : 'noControlCharacters',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || controlCharacterProblem(value, rule) === null,
        defaultMessage: buildMessage(
          (eachPrefix) => `${eachPrefix}$property ${controlCharacterProblem('\u0001', rule)}`,
          options,
        ),
      },
    },
    options,
  );
}
