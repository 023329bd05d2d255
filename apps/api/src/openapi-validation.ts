import { getMetadataStorage } from 'class-validator';
import type { OpenAPIObject } from '@nestjs/swagger';

type Json = Record<string, any>;

/**
 * What the request DTOs' validators enforce and the Swagger plugin does not carry into the schema: the
 * control-character rule (libs/core/src/validation/control-characters.ts) as a `pattern`, and
 * `@MaxLength(n, { each: true })` as the items' `maxLength`. Read from class-validator's own metadata,
 * so the contract cannot drift from the validators.
 */
// The pattern strings hold `\x00`-style escapes (ECMA-262 regex syntax), not the characters themselves.
const NO_CONTROL = '^[^\\x00-\\x1F\\x7F]*$';
const NO_CONTROL_BUT_LINE_BREAKS = '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F]*$';
const PATTERNS: Record<string, string> = {
  noControlCharacters: NO_CONTROL,
  noControlCharactersButLineBreaks: NO_CONTROL_BUT_LINE_BREAKS,
};

export function applyValidatorRules(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Json;
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<abstract new (...args: never[]) => unknown, { propertyName: string; name?: string; each?: boolean; constraints?: unknown[] }[]> };
  for (const [target, rules] of storage.validationMetadatas) {
    const schema = schemas[target.name];
    if (!schema?.properties) continue;
    for (const rule of rules) {
      const property = schema.properties[rule.propertyName];
      if (!property || !rule.name) continue;
      const node = rule.each && property.items ? property.items : property;
      if (node.type !== 'string') continue;
      const pattern = PATTERNS[rule.name];
      if (pattern && node.pattern === undefined && node.enum === undefined) node.pattern = pattern;
      if (rule.name === 'maxLength' && node.maxLength === undefined) node.maxLength = rule.constraints?.[0];
    }
  }
  return document;
}
