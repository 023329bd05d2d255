import type { OpenAPIObject } from '@nestjs/swagger';
import { OAUTH_SCOPES } from '@app/auth';

/**
 * What every route shares goes into the document here, once, rather than on each controller: these
 * follow from app-wide behaviour (the global validation pipe, the JSON-only body check, the body size
 * limit, the auth guard's rate limiting, the error filter), so they hold for every route that has the
 * feature and stay true for routes added later. docs/api-contract.md lists them.
 */

type Json = Record<string, any>;

const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponseDto' };
const errorResponse = (description: string, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ERROR_SCHEMA } },
});

const HEADERS: Json = {
  'RateLimit-Limit': {
    description: 'Requests allowed per window for this credential.',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends.',
    schema: { type: 'integer', minimum: 1 },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': {
    description:
      'The challenge (RFC 6750 on /v1): `Bearer`, or `Bearer error="invalid_token"` when the credential sent was not accepted.',
    required: true,
    schema: { type: 'string', maxLength: 200 },
  },
  'X-Request-Id': {
    description: 'The id of this request in the service log: yours when you sent a sane `X-Request-Id` (1 to 128 of `A-Za-z0-9._:-`), else `req_<uuid>`.',
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  InsufficientScope: {
    description:
      'On a `403` to an API key or OAuth token that lacks the scope the request needs (RFC 6750 §3.1): ' +
      '`Bearer error="insufficient_scope", scope="<the scope>"`. Not sent for other refusals.',
    schema: { type: 'string', maxLength: 200 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
/** The paths the JSON-only body check covers (libs/core/src/http/json-body-only.middleware.ts). */
const JSON_API = /^\/(?:v1\/|r\/\{[^}]+\}\/api(?:\/|$))/;
const OAUTH_GRANTABLE = new Set<string>(OAUTH_SCOPES);
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

export function applyContractConventions(document: OpenAPIObject): OpenAPIObject {
  const doc = document as Json;
  doc.components ??= {};
  doc.components.headers = { ...(doc.components.headers ?? {}), ...HEADERS };
  const closed = new Set<string>();

  for (const [path, operations] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const responses: Json = (operation.responses ??= {});
      const jsonBody = operation.requestBody?.content?.['application/json']?.schema;

      if (jsonBody) {
        // The validation pipe refuses fields a request DTO does not declare (forbidNonWhitelisted).
        closeObjects(doc, jsonBody, closed);
        responses['413'] ??= errorResponse('The request body is larger than 1 MB.');
        responses['415'] ??= errorResponse('The request has a body that is not `application/json`.');
      } else if (method !== 'get' && JSON_API.test(path)) {
        // A route that takes no body answers a request without one (any Content-Type or none); a body
        // sent anyway is still parsed as JSON, so these two hold here too.
        responses['413'] ??= errorResponse('This route takes no body; one was sent and is larger than 1 MB.');
        responses['415'] ??= errorResponse('This route takes no body; one was sent and is not `application/json`. Send none.');
      }
      nameInlineAlternatives(doc, operation);
      for (const parameter of operation.parameters ?? []) {
        // Ids and brand keys: nothing longer exists, so a longer one is simply not found (404).
        if (parameter.in === 'path' && parameter.schema?.type === 'string') parameter.schema.maxLength ??= 100;
      }

      // Refused before any route reads it (libs/core/src/http/safe-input.middleware.ts).
      responses['400'] ??= errorResponse('Input no field accepts: a NUL character (U+0000) in the path, the query or the body, or a JSON body nested too deep.');

      const scope = operation['x-required-scope'];
      if (scope) {
        for (const [status, response] of Object.entries<Json>(responses)) {
          if (status === '401') continue; // counted against the address, not a credential
          addHeaders(response, RATE_LIMIT_HEADERS);
        }
        if (responses['403']) {
          responses['403'].headers ??= {};
          responses['403'].headers['WWW-Authenticate'] ??= headerRef('InsufficientScope');
        }
        // An OAuth access token works where the scope is one an app may be granted; API keys work everywhere.
        // A route taking any of several scopes (RequireAnyScope) lists each as an alternative.
        for (const one of ([] as string[]).concat(scope)) {
          if (OAUTH_GRANTABLE.has(one) && (operation.security ?? []).some((requirement: Json) => 'bearer' in requirement)) {
            operation.security.push({ oauth2: [one] });
          }
        }
      }
      if (responses['429']) addHeaders(responses['429'], ['Retry-After']);
      if (responses['401']) addHeaders(responses['401'], ['WWW-Authenticate']);

      const idempotencyKey = (operation.parameters ?? []).find(
        (p: Json) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
      );
      if (idempotencyKey) {
        idempotencyKey.schema = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[\\x21-\\x7E]+$' };
        for (const status of ['200', '207']) if (responses[status]) addHeaders(responses[status], ['Idempotent-Replayed']);
      }

      responses['500'] ??= errorResponse('Unexpected failure: `error: internal` with a `requestId` that finds it in the logs.');
      // The error filter's answer while PostgreSQL (or something else the request needs) is unreachable
      // (docs/operations.md, Degraded modes): clients retry after Retry-After.
      responses['503'] ??= errorResponse(
        'Briefly unavailable (PostgreSQL unreachable, or something the request needs is busy): `error: internal`; retry after `Retry-After` seconds, with the same `Idempotency-Key` where the operation takes one.',
      );
      addHeaders(responses['503'], ['Retry-After']);
      responses.default ??= errorResponse('Any other failure.');
      // The request logger sets it on every answer (libs/core/src/logging/logging.module.ts).
      for (const response of Object.values<Json>(responses)) addHeaders(response, ['X-Request-Id']);
    }
  }
  // Every tag an operation uses is declared, in the order first used.
  const tags = new Set<string>();
  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(operations)) for (const tag of operation.tags ?? []) tags.add(tag);
  }
  doc.tags = [...tags].map((name) => doc.tags?.find((t: Json) => t.name === name) ?? { name, description: TAGS[name] ?? name });
  giveIntegersAFormat(doc);
  return document;
}

const TAGS: Record<string, string> = {
  Account: 'The account a credential belongs to: its settings, branding and overview.',
  Wallet: 'The prepaid balances rewards are paid from, one wallet per currency, and their ledger.',
  'Top-ups': 'Adding money to a wallet.',
  FX: 'Exchange rates, quotes binding for 60 s, and conversions between wallets.',
  Catalog: 'Gift-card brands and the items that can be sent.',
  Rewards: 'Sending rewards, one or in bulk, and following them.',
  Webhooks: 'Endpoints that receive signed event notifications, and their deliveries.',
  OAuth: 'Token and revocation endpoints for marketplace apps (RFC 6749, RFC 7009) and server metadata (RFC 8414).',
};

const INT32 = 2 ** 31;

/** int32 when the bounds fit in 32 bits, int64 otherwise: cents and counts may exceed 2^31. */
function giveIntegersAFormat(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(giveIntegersAFormat);
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  if (schema.type === 'integer' && schema.format === undefined) {
    const fits = schema.maximum !== undefined && schema.maximum < INT32 && (schema.minimum ?? 0) >= -INT32;
    schema.format = fits ? 'int32' : 'int64';
  }
  Object.values(schema).forEach(giveIntegersAFormat);
}

/**
 * An answer that is one of several schemas gets a name of its own (`<OperationId><status>Response`), so
 * generated clients and docs show a named type rather than an anonymous union. The alternatives share
 * no property a discriminator could key on; each one's description says how to tell them apart.
 */
function nameInlineAlternatives(doc: Json, operation: Json): void {
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    const media = response.content?.['application/json'];
    if (!media?.schema?.oneOf || !operation.operationId) continue;
    const name = `${operation.operationId[0].toUpperCase()}${operation.operationId.slice(1)}${status}Response`;
    doc.components.schemas[name] = { description: response.description, ...media.schema };
    media.schema = { $ref: `#/components/schemas/${name}` };
  }
}

function addHeaders(response: Json, names: string[]): void {
  response.headers ??= {};
  for (const name of names) response.headers[name] ??= headerRef(name);
}

/** additionalProperties: false on a request schema and every object schema it reaches. */
function closeObjects(doc: Json, schema: Json | undefined, seen: Set<string>): void {
  if (!schema || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (seen.has(name)) return;
    seen.add(name);
    return closeObjects(doc, doc.components?.schemas?.[name], seen);
  }
  if (schema.properties) {
    schema.additionalProperties ??= false;
    for (const property of Object.values<Json>(schema.properties)) closeObjects(doc, property, seen);
  }
  closeObjects(doc, schema.items, seen);
  for (const key of ['allOf', 'oneOf', 'anyOf']) for (const part of schema[key] ?? []) closeObjects(doc, part, seen);
}
