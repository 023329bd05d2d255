import { DECORATORS } from '@nestjs/swagger';
import type { defaultMetadataStorage as Storage } from 'class-transformer/types/storage';
import { getMetadataStorage, IS_OPTIONAL } from 'class-validator';
import type { FieldIssue } from '../errors/api-error';

// class-transformer's type registry (`@Type()`): its CommonJS module and its types live apart.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: typeof Storage };

type Constructor = abstract new (...args: never[]) => unknown;

/**
 * What class-transformer and class-validator cannot be trusted with, found on the plain JSON before
 * either sees it (docs/errors.md, Validation):
 * - a non-object where the DTO nests an object (`recipient: [...]`): class-transformer would build one
 *   instance per array element, and class-validator report every one of them, so a 600 KB body became a
 *   17 MB answer built on the event loop. One issue names the field instead;
 * - a field the DTO does not declare: refused here as the pipe's `forbidNonWhitelisted` would, since
 *   class-transformer takes time quadratic in the number of keys (50,000 unknown keys held the event
 *   loop for 17 s);
 * - `null` for an optional field the API does not document as nullable: `@IsOptional()` lets null
 *   through as it lets a missing field through, and code that expects a string or nothing then fails
 *   with a 500. It is a 400 naming the field.
 * The walk is linear in the size of the input; BadRequestError lists the first MAX_ISSUES issues.
 */
export function inputShapeIssues(value: unknown, metatype: Constructor, path = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  collect(value, metatype, path, issues);
  return issues;
}

function collect(value: unknown, metatype: Constructor, path: string, issues: FieldIssue[]): void {
  if (!isPlainObject(value)) {
    issues.push({ path: path || 'body', message: 'must be a JSON object' });
    return;
  }
  const known = declaredProperties(metatype);
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (!known.has(key)) {
      // class-validator's own wording for a field it does not know.
      issues.push({ path: childPath, message: `${key} should not exist` });
      continue;
    }
    if (child === null) {
      if (isOptional(metatype, key) && !isNullable(metatype, key)) issues.push({ path: childPath, message: 'must not be null; omit the field instead' });
      continue;
    }
    const nested = nestedClass(metatype, key);
    if (!nested || child === undefined) continue;
    if (nested.array) {
      if (!Array.isArray(child)) continue; // @IsArray() reports it, on one issue
      child.forEach((element, index) => collect(element, nested.type, `${childPath}.${index}`, issues));
    } else {
      collect(child, nested.type, childPath, issues);
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The class a property nests (`@Type(() => RecipientDto)`), and whether it is declared as an array of it. */
function nestedClass(metatype: Constructor, key: string): { type: Constructor; array: boolean } | null {
  const metadata = defaultMetadataStorage.findTypeMetadata(metatype, key);
  if (!metadata) return null;
  const type = metadata.typeFunction() as unknown;
  // `@Type(() => Number)` and the like convert scalars (query strings); only DTO classes nest.
  if (typeof type !== 'function' || [Number, String, Boolean, Date, Object, Array].includes(type as never)) return null;
  return { type: type as Constructor, array: metadata.reflectedType === Array };
}

function rules(metatype: Constructor) {
  return getMetadataStorage().getTargetValidationMetadatas(metatype as never, '', true, false);
}

/** The properties class-validator knows of the class: what `whitelist` keeps. */
function declaredProperties(metatype: Constructor): Set<string> {
  return new Set(rules(metatype).map((rule) => rule.propertyName));
}

function isOptional(metatype: Constructor, key: string): boolean {
  return rules(metatype).some((rule) => rule.propertyName === key && rule.name === IS_OPTIONAL);
}

/** Documented as nullable: `@ApiProperty({nullable: true})`, or `| null` in the type seen by the OpenAPI plugin. */
function isNullable(metatype: Constructor, key: string): boolean {
  const declared = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, metatype.prototype as object, key) as { nullable?: boolean } | undefined;
  if (declared?.nullable) return true;
  const factory = (metatype as unknown as { _OPENAPI_METADATA_FACTORY?: () => Record<string, { nullable?: boolean }> })._OPENAPI_METADATA_FACTORY;
  return factory?.()[key]?.nullable === true;
}
