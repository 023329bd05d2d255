import { execFileSync } from 'node:child_process';
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
    const created = sent.data && 'reward' in sent.data ? sent.data.reward : undefined;
    expect(created?.type).toBe('FIXED');

    const read = await client.GET('/v1/rewards/{id}', { params: { path: { id: created!.id } } });
    expect(read.data?.reward.id).toBe(created!.id);

    const list = await client.GET('/v1/rewards', { params: { query: { external_id: 'typed-1', page_size: 10 } } });
    expect(list.data?.rewards.map((r) => r.id)).toEqual([created!.id]);

    const wallet = await client.GET('/v1/wallet');
    expect(wallet.data?.wallet.availableCents).toBe(50_000 - created!.faceValueCents);
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
