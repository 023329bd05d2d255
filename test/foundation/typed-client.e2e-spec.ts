import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRewardsClient, RewardsClient } from '../../clients/typescript';
import { sharedContract } from '../support/contract';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The generated TypeScript client (clients/typescript, from openapi.yaml) drives a happy path
 * against the real app: if the contract changes in a way that breaks callers, this file stops
 * compiling or its calls fail. Every answer is also checked against openapi.yaml.
 */
describe('generated TypeScript client', () => {
  let t: TestApp;
  let client: RewardsClient;

  beforeAll(async () => {
    // No worker runs in this file: its webhook endpoint names a public host, never to be reached (docs/operations.md, "Tests are hermetic").
    t = await startTestApp();
    const merchant = await seedMerchant(t);
    const checkedFetch = async (request: Request): Promise<Response> => {
      const response = await fetch(request);
      const text = await response.clone().text();
      const contentType = response.headers.get('content-type');
      const body = contentType?.includes('json') && text ? JSON.parse(text) : text || undefined;
      sharedContract().check(request.method, request.url, response.status, contentType, body, response.headers);
      return response;
    };
    client = createRewardsClient({ baseUrl: t.baseUrl, token: merchant.key, fetch: checkedFetch });
  });
  afterAll(() => t.close());

  it('is what openapi-typescript generates from the committed openapi.yaml (run `npm run openapi` after a change)', () => {
    expect(() =>
      execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'typescript-client.js'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('tops up, reads the catalog, sends a reward, reads it back and lists it', async () => {
    const topup = await client.POST('/v1/topups', { body: { amountCents: 50_000 } });
    expect(topup.response.status).toBe(201);
    expect(topup.data?.topup.status).toBe('SUCCEEDED');

    const catalog = await client.GET('/v1/catalog', { params: { query: { currency: 'USD' } } });
    const item = catalog.data?.brands.flatMap((brand) => brand.items).find((i) => i.valueType === 'FIXED_VALUE' && i.faceValue !== null);
    expect(item).toBeDefined();

    const sent = await client.POST('/v1/rewards', {
      params: { header: { 'Idempotency-Key': 'typed-client-1' } },
      body: {
        type: 'FIXED',
        utid: item!.utid,
        valueCents: Math.round(item!.faceValue! * 100), // faceValue is in major units
        recipient: { email: 'typed.client@example.test', firstName: 'Ada' },
        externalId: 'typed-1',
      },
    });
    expect(sent.response.status).toBe(201);
    const created = sent.data && 'redemptionUrl' in sent.data ? sent.data.reward : undefined;
    expect(created?.type).toBe('FIXED');

    const read = await client.GET('/v1/rewards/{id}', { params: { path: { id: created!.id } } });
    expect(read.data?.reward.id).toBe(created!.id);

    const list = await client.GET('/v1/rewards', { params: { query: { external_id: 'typed-1', page_size: 10 } } });
    expect(list.data?.rewards.map((r) => r.id)).toEqual([created!.id]);

    const wallet = await client.GET('/v1/wallet');
    expect(wallet.data?.wallet.availableCents).toBe(50_000 - created!.faceValueCents);
  });

  it("types a webhook delivery's payload as the discriminated event: `payload.type` narrows `payload.data`", async () => {
    const endpoint = await client.POST('/v1/webhook-endpoints', { body: { url: 'https://example.com/typed-hooks', events: [] } });
    const id = endpoint.data!.webhookEndpoint.id;
    expect((await client.POST('/v1/webhook-endpoints/{id}/test', { params: { path: { id } } })).response.ok).toBe(true);
    const deliveries = await client.GET('/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id } } });
    const payload = deliveries.data!.deliveries[0]!.payload;
    // Compile-level: with the payload wrapped in allOf, openapi-typescript dropped `type` and neither line compiled.
    const type: 'ping' | `reward.${string}` | `card.${string}` | `wallet.${string}` | `catalog.${string}` | `report.${string}` = payload.type;
    expect(type).toBe('ping');
    if (payload.type === 'ping') expect(payload.data.webhookEndpointId).toBe(id);
    else throw new Error(`expected a ping, got ${payload.type}`);
  });

  it('surfaces the documented error shape as a typed error', async () => {
    const refused = await client.POST('/v1/rewards', {
      body: { type: 'CHOICE', valueCents: 0, recipient: { email: 'not-an-email', firstName: 'Ada' } },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error).toBe('bad_request');
    expect(refused.error?.issues?.map((issue) => issue.path).sort()).toEqual(['recipient.email', 'valueCents']);
  });
});

/** The client is shipped as TypeScript source: it must compile as CommonJS and as an ES module (nodenext). */
describe('generated TypeScript client compiles', () => {
  it.each([
    ['CommonJS (module commonjs, moduleResolution node10)', { module: 'commonjs', moduleResolution: 'node10' }, 'commonjs'],
    ['an ES module under nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }, 'module'],
  ])('compiles with --strict as %s', (_, options, packageType) => {
    const root = join(__dirname, '..', '..');
    const dir = mkdtempSync(join(tmpdir(), 'typed-client-'));
    try {
      for (const file of ['index.ts', 'schema.d.ts', 'example.ts']) copyFileSync(join(root, 'clients', 'typescript', file), join(dir, file));
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: packageType }));
      const compilerOptions = { ...options, strict: true, noEmit: true, target: 'ES2022', lib: ['ES2023', 'DOM'], skipLibCheck: true, types: [] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts', 'schema.d.ts', 'example.ts'] }));
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      expect(() => execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { stdio: 'pipe' })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
