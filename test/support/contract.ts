import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

type Json = Record<string, any>;

export const OPENAPI_PATH = join(__dirname, '..', '..', 'openapi.yaml');
const PARSED_DIR = join(__dirname, '..', '.generated');

/**
 * A committed OpenAPI document (openapi.yaml, openapi.dashboard.yaml), parsed. Parsing the YAML took
 * 0.3-0.5 s of CPU in every test file that checks a response; the parse is kept as JSON in
 * test/.generated under the SHA-256 of the YAML text it came from, so a file reads it in milliseconds
 * and a changed document is parsed again (docs/testing.md, "How the tests compile"). The YAML has no
 * value JSON cannot hold (dates, binary, special numbers): the two give deep-equal documents.
 */
export function readOpenApi(path: string): Json {
  const text = readFileSync(path, 'utf8');
  const hash = createHash('sha256').update(text).digest('hex');
  const cached = join(PARSED_DIR, `${basename(path)}.json`);
  try {
    const entry = JSON.parse(readFileSync(cached, 'utf8')) as { sha256: string; document: Json };
    if (entry.sha256 === hash) return entry.document;
  } catch {
    // none yet, or another file is writing it: parse it here
  }
  const document = parse(text) as Json;
  // Written aside and renamed: the Jest workers read it while another may be writing it.
  mkdirSync(PARSED_DIR, { recursive: true });
  const partial = `${cached}.${process.pid}`;
  writeFileSync(partial, JSON.stringify({ sha256: hash, document }));
  renameSync(partial, cached);
  return document;
}

let shared: Contract | undefined;
/** One parsed contract per test file. */
export const sharedContract = () => (shared ??= new Contract());

/**
 * Checks a response against openapi.yaml, the committed contract: the operation must exist, the
 * status must be documented for it, and the body must match the documented schema. Objects are
 * closed (additionalProperties: false) here, so an undocumented field fails a test as well.
 */
export class Contract {
  private readonly document: Json;
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: { method: string; template: string; pattern: RegExp }[] = [];

  constructor(document: Json = readOpenApi(OPENAPI_PATH)) {
    this.document = closeObjects(structuredClone(document));
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(this.document, 'openapi');
    for (const [template, operations] of Object.entries<Json>(this.document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(operations)) this.routes.push({ method, template, pattern });
    }
  }

  /** Throws with a readable explanation when the response breaks the contract. */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown, headers?: Headers): void {
    const path = new URL(url, 'http://x').pathname;
    const route = this.routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
    if (!route) {
      if (status === 404 || status === 405) return this.validate('#/components/schemas/ErrorResponseDto', body, `${method} ${path}`);
      throw new Error(`${method} ${path} is not in openapi.yaml`);
    }
    const responses = this.document.paths[route.template][route.method].responses as Json;
    const documented = responses[String(status)] ? String(status) : 'default';
    const response = responses[documented];
    const where = `${method} ${route.template} -> ${status}`;
    if (!response) throw new Error(`${where}: status ${status} is not documented in openapi.yaml`);
    if (headers) this.checkHeaders(response, headers, where);
    const media = contentType?.split(';')[0].trim();
    // A documented non-JSON answer (a PDF statement or receipt): its media type must be listed.
    if (media && media !== 'application/json' && response.content?.[media]) return;
    if (media && !media.includes('json') && body !== undefined && response.content && !response.content['application/json']) {
      throw new Error(`${where}: ${media} is not documented`);
    }
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (body !== undefined && contentType?.includes('json')) throw new Error(`${where}: a JSON body is not documented`);
      return;
    }
    if (!contentType?.includes('application/json')) throw new Error(`${where}: expected JSON, got ${contentType}`);
    const pointer = ['paths', route.template, route.method, 'responses', documented, 'content', 'application/json', 'schema']
      .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    this.validate(`#/${pointer}`, body, where);
  }

  /**
   * Checks a webhook request as a receiver got it: the body against the schema of its event type,
   * and the signature headers against the callback of createWebhookEndpoint.
   */
  checkWebhook(body: unknown, headers: Record<string, string | string[] | undefined>): void {
    const type = (body as { type?: string } | null)?.type;
    const where = `webhook ${type}`;
    this.validate('#/components/schemas/WebhookEvent', body, where);
    const callback = this.document.paths['/v1/webhook-endpoints'].post.callbacks.webhookEvent['{$request.body#/url}'].post;
    for (const parameter of callback.parameters as Json[]) {
      const value = headers[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required) throw new Error(`${where}: header ${parameter.name} is missing`);
        continue;
      }
      if (!this.ajv.validate(parameter.schema, value)) {
        throw new Error(`${where}: header ${parameter.name}: ${JSON.stringify(value)} does not match ${JSON.stringify(parameter.schema)}`);
      }
    }
  }

  /** Whether `body` fits the JSON request body schema of `method template` (e.g. `POST /v1/rewards`). */
  acceptsRequestBody(method: string, template: string, body: unknown): boolean {
    const pointer = ['paths', template, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema']
      .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#/${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate(body) as boolean;
  }

  /** Headers the contract marks required must be sent, and every declared header sent must fit its schema. */
  private checkHeaders(response: Json, headers: Headers, where: string): void {
    for (const [name, declared] of Object.entries<Json>(response.headers ?? {})) {
      const header = declared.$ref ? this.document.components.headers[declared.$ref.split('/').pop()] : declared;
      const value = headers.get(name);
      if (value === null) {
        if (header.required) throw new Error(`${where}: required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const typed = schema.type === 'integer' ? Number(value) : value;
      const validate = this.ajv.compile(schema);
      if (!validate(typed)) throw new Error(`${where}: header ${name}: ${JSON.stringify(value)} does not match ${JSON.stringify(schema)}`);
    }
  }

  private validate(pointer: string, body: unknown, where: string): void {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (!validate(body)) {
      const errors = validate.errors!.map((e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
      throw new Error(`${where}: response does not match openapi.yaml:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(body)}`);
    }
  }
}

function closeObjects(node: any): any {
  if (Array.isArray(node)) node.forEach(closeObjects);
  else if (node && typeof node === 'object') {
    if (node.properties && node.additionalProperties === undefined && !node.allOf) node.additionalProperties = false;
    Object.values(node).forEach(closeObjects);
  }
  return node;
}
