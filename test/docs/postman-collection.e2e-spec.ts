import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { ApiResponse } from '../support/api-client';
import { bodyExamples, documentedOperations, documentedSuccess } from '../support/openapi-examples';
import { ROOT } from '../support/processes';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The Postman collection (clients/postman, Collection v2.1) is generated from openapi.yaml by
 * scripts/postman-collection.js: it must be what the contract generates now, hold every operation
 * with every request example, and its requests, sent as Postman builds them from the collection's
 * variables and authentication, must get the documented statuses.
 */
const FILE = join(ROOT, 'clients', 'postman', 'rewards-api.postman_collection.json');
const collection = JSON.parse(readFileSync(FILE, 'utf8'));

interface Item {
  name: string;
  request: {
    method: string;
    header: { key: string; value: string; disabled?: boolean }[];
    url: { raw: string; path: string[]; query?: { key: string; value: string; disabled?: boolean }[]; variable?: { key: string; value: string }[] };
    auth?: { type: string; basic?: { key: string; value: string }[] };
    body?: { mode: 'raw' | 'urlencoded'; raw?: string; urlencoded?: { key: string; value: string }[] };
  };
}

const items: Item[] = collection.item.flatMap((folder: { item: Item[] }) => folder.item);

/** What Collection v2.1 (schema.getpostman.com) requires of what the generator writes: enough to import. */
const V21_SUBSET = {
  type: 'object',
  required: ['info', 'item'],
  properties: {
    info: {
      type: 'object',
      required: ['name', 'schema'],
      properties: { name: { type: 'string' }, schema: { const: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' } },
    },
    auth: { $ref: '#/definitions/auth' },
    variable: { type: 'array', items: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, value: {} } } },
    item: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'item'],
        properties: {
          item: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'request'],
              properties: {
                request: {
                  type: 'object',
                  required: ['method', 'url'],
                  properties: {
                    method: { enum: ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'] },
                    header: { type: 'array', items: { type: 'object', required: ['key', 'value'] } },
                    url: { type: 'object', required: ['raw', 'host', 'path'] },
                    auth: { $ref: '#/definitions/auth' },
                    body: { type: 'object', properties: { mode: { enum: ['raw', 'urlencoded'] } } },
                  },
                },
                event: { type: 'array', items: { type: 'object', required: ['listen', 'script'], properties: { listen: { enum: ['test', 'prerequest'] } } } },
              },
            },
          },
        },
      },
    },
  },
  definitions: { auth: { type: 'object', required: ['type'], properties: { type: { enum: ['noauth', 'basic', 'bearer'] } } } },
};

describe('the Postman collection (clients/postman)', () => {
  it('is what openapi.yaml generates (run `npm run openapi` after a contract change)', () => {
    expect(() => execFileSync(process.execPath, [join(ROOT, 'scripts', 'postman-collection.js'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('is a Collection v2.1 document', () => {
    const validate = new Ajv({ strict: false, allErrors: true }).compile(V21_SUBSET);
    expect(validate(collection) ? [] : validate.errors).toEqual([]);
  });

  it('has every operation of the contract, with each of its request examples as a request body', () => {
    const missing: string[] = [];
    for (const { method, path, operationId, operation } of documentedOperations()) {
      const segments = path.slice(1).split('/').map((segment) => segment.replace(/^\{(\w+)\}$/, ':$1'));
      const requests = items.filter((item) => item.request.method === method && item.request.url.path.join('/') === segments.join('/'));
      if (requests.length === 0) missing.push(operationId);
      for (const example of bodyExamples(operation)?.examples ?? []) {
        const bodies = requests.map((item) =>
          item.request.body?.mode === 'raw'
            ? JSON.parse(item.request.body.raw!)
            : Object.fromEntries((item.request.body?.urlencoded ?? []).map(({ key, value }) => [key, value])),
        );
        const expected = bodyExamples(operation)!.mediaType === 'application/json' ? example.value : Object.fromEntries(Object.entries(example.value as object).map(([k, v]) => [k, String(v)]));
        if (!bodies.some((body) => JSON.stringify(body) === JSON.stringify(expected))) missing.push(`${operationId} example ${example.name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  describe('sent as Postman sends it', () => {
    let t: TestApp;
    let merchant: SeededMerchant;
    beforeAll(async () => {
      // A database of its own: the example endpoints name example.com, which no other file's worker may try to reach.
      t = await startTestApp({ env: await isolatedDatabase() });
      merchant = await seedMerchant(t);
    });
    afterAll(() => t?.close());

    /** Postman's variable substitution, the collection's bearer auth unless the request has its own. */
    async function send(item: Item): Promise<ApiResponse> {
      const variables: Record<string, string> = { baseUrl: t.baseUrl, apiKey: merchant.key };
      const substitute = (text: string) => text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => variables[name] ?? `{{${name}}}`);
      const url = new URL(substitute(item.request.url.raw));
      const headers: Record<string, string> = {};
      for (const header of item.request.header) if (!header.disabled) headers[header.key.toLowerCase()] = substitute(header.value);
      const auth = item.request.auth ?? collection.auth;
      let token: string | null = null;
      if (auth.type === 'bearer') token = substitute(auth.bearer.find((entry: { key: string }) => entry.key === 'token').value);
      return t.api.request(item.request.method, `${url.pathname}${url.search}`, {
        headers,
        token,
        rawBody: item.request.body?.mode === 'raw' ? item.request.body.raw : undefined,
      });
    }

    // The requests that need no object made first (path ids, or a body naming one: a conversion names a
    // quote made less than 60 s before) and no OAuth client: in collection order.
    const NAMES_A_FRESH_OBJECT = new Set(['createFxConversion']);
    const operationOf = (item: Item) =>
      documentedOperations().find((op) => op.method === item.request.method && op.path.slice(1) === item.request.url.path.join('/'));
    const standalone = items.filter(
      (item) => !item.request.url.variable && item.request.auth?.type !== 'basic' && !NAMES_A_FRESH_OBJECT.has(operationOf(item)?.operationId ?? ''),
    );

    it.each(standalone.map((item) => [item.name, item]))('%s', async (_, item) => {
      const operation = documentedOperations().find(
        (op) => op.method === item.request.method && op.path.slice(1) === item.request.url.path.join('/'),
      )!;
      const res = await send(item);
      expect({ status: res.status, body: res.status === documentedSuccess(operation.operation) ? undefined : res.body }).toEqual({
        status: documentedSuccess(operation.operation),
        body: undefined,
      });
    });
  });
});
