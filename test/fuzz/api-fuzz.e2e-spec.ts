import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { parse } from 'yaml';
import { WEBHOOK_DNS_RESOLVER } from '@app/webhooks';
import { OPENAPI_PATH } from '../support/contract';
import { FakeDns } from '../support/fake-dns';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { choiceReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * Property-based fuzzing of every /v1 operation of openapi.yaml, and of the recipient's JSON API:
 * request bodies derived from each operation's schema, then mutated (wrong types, huge and odd
 * strings, NUL and other control characters, deep nesting, unknown and missing fields), query and
 * path parameters likewise. Every answer must be below 500 and, as the api client checks against
 * openapi.yaml, a documented status with the documented body (errors in the error shape). After the
 * run, the ledger must still add up. The seed is fixed when CI is set (FUZZ_SEED overrides it) and
 * printed always; FUZZ_RUNS changes the number of requests.
 */

type Json = Record<string, any>;
const document: Json = parse(readFileSync(OPENAPI_PATH, 'utf8'));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261122 : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

interface Operation {
  method: string;
  template: string;
  pathParams: string[];
  query: { name: string; schema: Json }[];
  headers: string[];
  body: Json | null;
}

const resolve = (schema: Json | undefined): Json => {
  let s = schema ?? {};
  while (s.$ref) s = s.$ref.split('/').slice(1).reduce((node: Json, key: string) => node[key], document);
  return s;
};

const OPERATIONS: Operation[] = Object.entries<Json>(document.paths)
  .filter(([template]) => template.startsWith('/v1/'))
  .flatMap(([template, operations]) =>
    Object.entries<Json>(operations).map(([method, op]) => {
      const parameters = ((op.parameters ?? []) as Json[]).map(resolve);
      return {
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolve(p.schema) })),
        headers: parameters.filter((p) => p.in === 'header').map((p) => p.name),
        body: op.requestBody ? resolve(op.requestBody.content['application/json']?.schema) : null,
      };
    }),
  );

// ---- values that break things ---------------------------------------------------------------

const oddString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    'a\u0001b',
    '\r\n',
    'Acme\r\nBcc: x@example.com',
    '\u001b[31mred',
    '\u007f',
    '\ud800',
    '\udfff\ud800',
    '\u202eevil',
    '\ufeff',
    'Zoë 李 🎁',
    '𝕏'.repeat(60),
    "'; DROP TABLE rewards; --",
    '<script>alert(1)</script>',
    '%00',
    '../../etc/passwd',
    '{{7*7}}',
    '-1',
    '1e309',
    'NaN',
    'true',
    'null',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.integer({ min: 101, max: 70_000 }).map((n) => 'x'.repeat(n)),
);
const oddNumber = fc.constantFrom(-1, 0, -0, 0.5, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 100_000_001, Number.MAX_SAFE_INTEGER);
const nested = fc.integer({ min: 2, max: 40 }).map((depth) => {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
});
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  oddNumber,
  fc.boolean(),
  fc.constant(null),
  nested,
  fc.anything({ maxDepth: 2, maxKeys: 3 }),
);

// ---- valid-ish values from the schema ---------------------------------------------------------

function valueOf(input: Json, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  const nullable = (arb: fc.Arbitrary<unknown>) => (schema.nullable ? fc.option(arb, { nil: null }) : arb);
  if (schema.allOf) return valueOf(schema.allOf[0], depth);
  if (schema.oneOf || schema.anyOf) return fc.oneof(...(schema.oneOf ?? schema.anyOf).map((s: Json) => valueOf(s, depth)));
  if (schema.enum) return nullable(fc.constantFrom(...schema.enum));
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date-time') return nullable(fc.integer({ min: -86_400, max: 86_400 * 400 }).map((s) => new Date(Date.now() + s * 1000).toISOString()));
      if (schema.format === 'uri') return nullable(fc.constantFrom('https://hooks.example.com/fuzz', 'https://cdn.example.com/logo.png', 'http://127.0.0.1/x', 'ftp://x'));
      if (schema.format === 'email') return nullable(fc.emailAddress());
      if (schema.pattern === '^#[0-9A-Fa-f]{6}$') return nullable(fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`));
      return nullable(fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) }));
    case 'integer':
      return nullable(fc.integer({ min: schema.minimum ?? -1_000, max: Math.min(schema.maximum ?? 100_000, 100_000) }));
    case 'number':
      return nullable(fc.double({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000, noNaN: true }));
    case 'boolean':
      return nullable(fc.boolean());
    case 'array':
      return nullable(fc.array(depth > 3 ? fc.constant('x') : valueOf(schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) }));
    default: {
      const properties = Object.entries<Json>(schema.properties ?? {});
      if (!properties.length) return nullable(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }));
      const model = Object.fromEntries(properties.map(([name, s]) => [name, depth > 3 ? fc.constant(null) : valueOf(s, depth + 1)]));
      return nullable(fc.record(model, { requiredKeys: schema.required ?? [] }));
    }
  }
}

/** A valid-ish body with one thing wrong (or nothing), or something that is not the body at all. */
function bodyOf(schema: Json): fc.Arbitrary<unknown> {
  const valid = valueOf(schema);
  const mutated = fc.tuple(valid, fc.nat(), oddValue, fc.constantFrom('replace', 'remove', 'unknown')).map(([value, pick, odd, how]) => {
    const copy = structuredClone(value);
    const paths: (string | number)[][] = [];
    const walk = (node: unknown, path: (string | number)[]) => {
      if (node === null || typeof node !== 'object') return;
      for (const key of Object.keys(node)) {
        const child = Array.isArray(node) ? Number(key) : key;
        paths.push([...path, child]);
        walk((node as Json)[key], [...path, child]);
      }
    };
    walk(copy, []);
    if (!paths.length) return odd;
    const path = paths[pick % paths.length];
    const parent: any = path.slice(0, -1).reduce((node: Json, key) => node[key], copy as Json);
    const key = path[path.length - 1];
    if (how === 'remove') delete parent[key];
    else if (how === 'unknown' && !Array.isArray(parent)) parent[`x_${String(key)}`] = odd;
    else parent[key] = odd;
    return copy;
  });
  return fc.oneof({ weight: 1, arbitrary: valid }, { weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: oddValue });
}

// ---- requests ---------------------------------------------------------------------------------

interface Request {
  method: string;
  path: string;
  rawBody?: string;
  headers: Record<string, string>;
}

/** Header values as fetch can send them (no control characters, Latin-1 only). */
const headerValue = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.:/ ~"\'*'.split('')), minLength: 0, maxLength: 40 }),
  fc.integer({ min: 90, max: 300 }).map((n) => 'k'.repeat(n)),
  fc.constantFrom('W/"abc"', '*', 'é', '\u00ff'),
);

function requestsFor(op: Operation, ids: Record<string, string[]>): fc.Arbitrary<Request> {
  const pathValue = (name: string) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(ids[name] ?? ['none'])).map(encodeURIComponent) },
      // Not empty, '.' or '..': the client would change the route itself (an empty segment, or URL normalisation).
      { weight: 2, arbitrary: oddString.filter((s) => s.length > 0 && s.length < 300 && s !== '.' && s !== '..').map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%2F', '%u0041', '%FF%FE') },
    );
  const queryValue = (schema: Json) =>
    fc.oneof(
      valueOf(schema).map((v) => (v === null || v === undefined ? '' : String(v))),
      oddString.filter((s) => s.length < 2000).map((s) => s.replace(/[\ud800-\udfff]/g, '?')),
      fc.constantFrom('%', '%zz', '-1', '0', '101', '1.5', '1e3', 'true', 'yes', '[]'),
    );
  const pathParts = fc.tuple(...op.pathParams.map((name) => pathValue(name === 'id' ? `${op.template.split('/')[2]}:id` : name)));
  const query = fc.array(fc.tuple(fc.constantFrom(...(op.query.length ? op.query : [{ name: 'unknown_param', schema: { type: 'string' } }])), fc.nat()), { maxLength: 3 }).chain((picked) =>
    fc.tuple(...picked.map(([param]) => queryValue(param.schema).map((value) => ({ name: param.name, value })))),
  );
  const headers = fc.tuple(...op.headers.map((name) => fc.option(headerValue, { nil: undefined }).map((value) => [name, value] as const)));
  // fetch sends no body with GET; a body-less POST or DELETE may still get one it does not expect.
  const body = op.body
    ? bodyOf(op.body).map((b) => JSON.stringify(b) ?? 'null')
    : op.method === 'GET'
      ? fc.constant(undefined)
      : fc.option(fc.constantFrom('{}', '{"a":1}', 'not json', '[]', '{"a":"\\u0000"}'), { nil: undefined });
  return fc.tuple(pathParts, query, headers, body).map(([parts, q, h, rawBody]) => {
    let i = 0;
    const path = op.template.replace(/\{[^}]+\}/g, () => parts[i++]);
    // Raw, so a malformed percent-sequence reaches the server as such.
    const search = q.map(({ name, value }) => `${name}=${/^%|^%zz$/.test(value) ? value : encodeURIComponent(value)}`).join('&');
    return {
      method: op.method,
      path: search ? `${path}?${search}` : path,
      rawBody,
      headers: Object.fromEntries(h.filter(([, v]) => v !== undefined)) as Record<string, string>,
    };
  });
}

describe('API fuzzing (fast-check over openapi.yaml)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  const ids: Record<string, string[]> = {};
  let token = '';

  beforeAll(async () => {
    // The rate limits are tested elsewhere; here they would only turn the run into 429s.
    // No worker runs in this file: the endpoints here are at public names, and are never delivered to; names are
    // answered by the DNS double, never by the machine's resolver (docs/operations.md, "Tests are hermetic").
    t = await startTestApp({
      env: { RATE_LIMIT_PER_MINUTE: '1000000', REDEMPTION_RATE_LIMIT_PER_MINUTE: '1000000' },
      overrides: [{ provide: WEBHOOK_DNS_RESOLVER, useValue: new FakeDns() }],
    });
    m = await seedMerchant(t);
    await fund(t, m, 1_000_000);
    const reward = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000));
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/fuzz', events: [] });
    const ping = await t.api.as(m.key).post(`/v1/webhook-endpoints/${hook.body.webhookEndpoint.id}/test`);
    const brands = await t.api.as(m.key).get('/v1/catalog');
    token = reward.body.redemptionUrl.split('/r/')[1];
    ids['rewards:id'] = [reward.body.reward.id, 'rw_unknown'];
    ids['webhook-endpoints:id'] = [hook.body.webhookEndpoint.id, 'we_unknown'];
    ids.deliveryId = [ping.body.delivery.id, 'whd_unknown'];
    ids.brandKey = [brands.body.brands[0].brandKey, 'no-such-brand'];
    // eslint-disable-next-line no-console
    console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} repeats this run), ${RUNS} requests over ${OPERATIONS.length} operations`);
  });
  afterAll(() => t?.close());

  it('no operation of /v1 answers 5xx or leaves the contract, whatever the body, query or path', async () => {
    const request = fc.constantFrom(...OPERATIONS).chain((op) => requestsFor(op, ids));
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const res = await t.api.as(m.key).request(r.method, r.path, { rawBody: r.rawBody, headers: r.headers });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // How the requests were answered, so a run that only ever got 400s shows as such.
    // eslint-disable-next-line no-console
    console.log(`fuzz answers by status: ${JSON.stringify(statuses)}`);
  }, 240_000);

  it("the recipient's JSON API answers no 5xx and always the error shape", async () => {
    const pick = bodyOf({
      type: 'object',
      required: ['utid', 'amountCents'],
      properties: { utid: { type: 'string', maxLength: 100 }, amountCents: { type: 'integer', minimum: 1, maximum: 100_000_000 } },
    });
    const tokens = fc.oneof(
      { weight: 3, arbitrary: fc.constant(token) },
      { weight: 1, arbitrary: oddString.filter((s) => s.length > 0 && s.length < 300 && s !== '.' && s !== '..').map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A') },
    );
    const request = fc.tuple(tokens, fc.boolean(), pick, fc.option(headerValue, { nil: undefined }));
    await fc.assert(
      fc.asyncProperty(request, async ([tok, get, body, key]) => {
        const res = await fetch(`${t.baseUrl}/r/${tok}/api${get ? '' : '/cards'}`, {
          method: get ? 'GET' : 'POST',
          headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
          body: get ? undefined : (JSON.stringify(body) ?? 'null'),
        });
        const text = await res.text();
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toContain('application/json');
          expect(JSON.parse(text)).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
        }
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 4) },
    );
  }, 120_000);

  it('no money moved but by the ledger: balances match their rows, top-ups, holds and pending cards', async () => {
    const db = t.app.get(DataSource);
    const wallet = await expectLedgerInvariants(db, m.accountId);
    const [row] = await db.query(
      `SELECT (SELECT COALESCE(SUM(amount_cents), 0) FROM topups WHERE account_id = $1 AND status = 'SUCCEEDED')::bigint AS topped_up,
              (SELECT COALESCE(SUM(available_delta_cents), 0) FROM wallet_transactions WHERE account_id = $1 AND kind = 'TOPUP')::bigint AS credited,
              (SELECT COALESCE(SUM(remaining_value_cents), 0) FROM rewards
                WHERE account_id = $1 AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED'))::bigint AS remaining,
              (SELECT COALESCE(SUM(c.amount_cents), 0) FROM reward_cards c JOIN rewards r ON r.id = c.reward_id
                WHERE r.account_id = $1 AND c.status = 'PENDING')::bigint AS pending`,
      [m.accountId],
    );
    expect(Number(row.credited)).toBe(Number(row.topped_up));
    expect(wallet.reserved).toBe(Number(row.remaining) + Number(row.pending));
  });
});
