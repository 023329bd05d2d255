import { ApiClient, ApiResponse } from '../support/api-client';
import { authorizationUrl, authorizeInBrowser, AuthorizationAttempt, registerApp, RegisteredApp } from '../support/oauth';
import {
  bodyExamples,
  documentedOperations,
  documentedSuccess,
  DocumentedOperation,
  NamedExample,
  openapiDocument,
  parameterExample,
} from '../support/openapi-examples';
import { eventually } from '../support/processes';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Examples that run (docs/api-contract.md, Examples): every operation of openapi.yaml shows a request,
 * and each one, sent as written to the service, gets the status the contract documents for it. Only
 * what cannot be written down in advance is filled in: path ids of objects made earlier in the run,
 * and the OAuth code, verifier and tokens of a real authorization. Request bodies, query values and
 * the catalog's utids and brand keys are the examples' own.
 */

/** The order the examples run in, each after what it needs; it must name every operation of the contract. */
const ORDER = [
  'oauthMetadata',
  'getAccount',
  'updateBranding',
  'getAlertSettings',
  'updateAlertSettings',
  'getReminderSettings',
  'updateReminderSettings',
  'getAccountOverview',
  'getAccountOverviewDaily',
  'createTopup',
  'listTopups',
  'getTopupReceipt',
  'getWallet',
  'listWallets',
  'listWalletTransactions',
  'getWalletStatement',
  'listFxRates',
  'createFxQuote',
  'createFxConversion',
  'listCatalog',
  'getCatalogBrand',
  'createReward',
  'createRewardsBulk',
  'listRewards',
  'getReward',
  'getRewardLedger',
  'updateReward',
  'resendReward',
  'cancelReward',
  'getApprovalSettings',
  'updateApprovalSettings',
  'getCatalogRules',
  'replaceCatalogRules',
  'createWebhookEndpoint',
  'listWebhookEndpoints',
  'getWebhookEndpoint',
  'testWebhookEndpoint',
  'rotateWebhookSecret',
  'updateWebhookEndpoint',
  'deleteWebhookEndpoint',
  'listWebhookDeliveries',
  'getWebhookDelivery',
  'retryWebhookDelivery',
  'replayWebhookEvents',
  'listEvents',
  'getEvent',
  // After the deliveries: the worker that builds the report runs from there on.
  'createReport',
  'listReports',
  'getReport',
  'downloadReport',
  'oauthToken',
  'oauthRevoke',
];

const document = openapiDocument();
const operations = new Map(documentedOperations(document).map((operation) => [operation.operationId, operation]));

describe('the examples of openapi.yaml', () => {
  it('are there for every operation: each request body has named examples and each path parameter an example', () => {
    const missing: string[] = [];
    for (const { operationId, operation } of operations.values()) {
      const body = bodyExamples(operation);
      if (body && body.examples.length === 0) missing.push(`${operationId}: request body`);
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && parameterExample(parameter) === undefined) missing.push(`${operationId}: path parameter ${parameter.name}`);
      }
    }
    expect(missing).toEqual([]);
    // A new operation needs its place in ORDER (and examples): this file sends every one.
    expect([...operations.keys()].sort()).toEqual([...ORDER].sort());
  });

  describe('sent to the service', () => {
    let t: TestApp;
    let worker: TestWorker | undefined;
    let receiver: WebhookReceiver;
    let merchant: SeededMerchant;
    let api: ApiClient;
    /** What the run has made so far, for the path ids and credentials examples cannot know. */
    const live: {
      rewards: Record<string, string>;
      endpoint?: string;
      delivery?: string;
      app?: RegisteredApp;
      attempt?: AuthorizationAttempt;
      code?: string;
      refreshToken?: string;
      quote?: string;
      topup?: string;
      event?: string;
      report?: string;
    } = { rewards: {} };

    beforeAll(async () => {
      receiver = await new WebhookReceiver().start();
      // A database of its own: the worker started half-way relays every event of its database.
      t = await startTestApp({ env: await isolatedDatabase() });
      merchant = await seedMerchant(t);
      api = t.api.as(merchant.key);
    });
    afterAll(async () => {
      await worker?.close();
      await t?.close();
      await receiver?.close();
    });

    /** What some examples need made first, by operation. */
    const BEFORE: Record<string, () => Promise<void>> = {
      // Deliveries need a finished one: a receiver of our own, a worker, a delivered ping. The endpoints the
      // examples made name example.com, which no test may reach, so they are removed before the worker starts.
      listWebhookDeliveries: async () => {
        for (const endpoint of (await api.get('/v1/webhook-endpoints')).body.webhookEndpoints) {
          expect((await api.delete(`/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
        }
        const created = await api.post('/v1/webhook-endpoints', { url: receiver.url('/hooks'), events: [] });
        expect(created.status).toBe(201);
        live.endpoint = created.body.webhookEndpoint.id;
        worker = await startTestWorker(t);
        const ping = await api.post(`/v1/webhook-endpoints/${live.endpoint}/test`);
        expect(ping.status).toBe(202);
        live.delivery = ping.body.delivery.id;
        await eventually(async () => {
          const delivery = await api.get(`/v1/webhook-endpoints/${live.endpoint}/deliveries/${live.delivery}`);
          return delivery.body.delivery.status === 'SUCCEEDED';
        });
      },
      // An event this run made (a top-up's, a reward's).
      getEvent: async () => {
        const listed = await api.get('/v1/events?limit=1');
        expect(listed.status).toBe(200);
        live.event = listed.body.events[0].id;
      },
      // The download needs the report built: the worker started for the deliveries builds it.
      downloadReport: async () => {
        await eventually(async () => (await api.get(`/v1/reports/${live.report}`)).body.report.status === 'COMPLETED');
      },
      // A real authorization of an app registered with the example's redirect_uri: the code and verifier it gives.
      oauthToken: async () => {
        const example = bodyExamples(operations.get('oauthToken')!.operation)!.examples.find((e) => (e.value as any).grant_type === 'authorization_code');
        live.app = await registerApp(t, ['account:read', 'rewards:read'], (example!.value as any).redirect_uri);
        live.attempt = await authorizationUrl(live.app, 'account:read rewards:read');
        const callback = await authorizeInBrowser(t, live.attempt, merchant);
        live.code = callback.searchParams.get('code')!;
        expect(live.code).toMatch(/^ocd_/);
      },
    };

    /** The value of a path parameter: an object this run made, or the example as written (a brand key). */
    function pathValue(op: DocumentedOperation, parameter: Record<string, any>): string {
      if (op.path.startsWith('/v1/rewards/') && parameter.name === 'id') {
        // Cancel takes the CHOICE reward (a FIXED card may be at the supplier already); the rest take the FIXED one.
        return op.operationId === 'cancelReward' ? live.rewards.choice : live.rewards.fixed;
      }
      if (op.path.startsWith('/v1/webhook-endpoints/') && parameter.name === 'id') return live.endpoint!;
      // A receipt is of the settled top-up this run made (the example's id names none).
      if (op.path.startsWith('/v1/topups/') && parameter.name === 'id') return live.topup!;
      if (op.path.startsWith('/v1/reports/') && parameter.name === 'id') return live.report!;
      if (parameter.name === 'deliveryId') return live.delivery!;
      if (op.path.startsWith('/v1/events/') && parameter.name === 'id') return live.event!;
      return String(parameterExample(parameter));
    }

    /** OAuth codes and tokens are made up in the examples; a real exchange sends the ones this run got. */
    function withLiveCredentials(operationId: string, value: Record<string, string>): Record<string, string> {
      if (operationId === 'oauthToken' && value.grant_type === 'authorization_code') return { ...value, code: live.code!, code_verifier: live.attempt!.verifier };
      if (operationId === 'oauthToken' && value.grant_type === 'refresh_token') return { ...value, refresh_token: live.refreshToken! };
      if (operationId === 'oauthRevoke') return { ...value, token: live.refreshToken! };
      // A quote binds for 60 s, so the conversion converts at the one this run just made.
      if (operationId === 'createFxConversion') return { ...value, quoteId: live.quote! };
      // A replay reaches 30 days back from today, which the example's fixed dates leave behind.
      if (operationId === 'replayWebhookEvents') return { createdGte: new Date(Date.now() - 86_400_000).toISOString(), createdLt: new Date().toISOString() };
      return value;
    }

    async function send(op: DocumentedOperation, example: NamedExample | null): Promise<ApiResponse> {
      const parameters: Record<string, any>[] = op.operation.parameters ?? [];
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathValue(op, parameters.find((p) => p.name === name)!)));
      const query = new URLSearchParams();
      for (const parameter of parameters) {
        const value = parameterExample(parameter);
        if (parameter.in === 'query' && value !== undefined) query.set(parameter.name, String(value));
      }
      const url = query.size ? `${path}?${query}` : path;
      const security: Record<string, unknown>[] = op.operation.security ?? document.security ?? [];
      const media = bodyExamples(op.operation)?.mediaType;
      if (media === 'application/x-www-form-urlencoded') {
        const form = new URLSearchParams(withLiveCredentials(op.operationId, example!.value as Record<string, string>));
        const basic = Buffer.from(`${live.app!.clientId}:${live.app!.clientSecret}`).toString('base64');
        return t.api.request(op.method, url, {
          rawBody: form.toString(),
          headers: { 'content-type': media, authorization: `Basic ${basic}` },
          token: null,
        });
      }
      const token = security.length === 0 ? null : merchant.key;
      const body = example && ['createFxConversion', 'replayWebhookEvents'].includes(op.operationId) ? withLiveCredentials(op.operationId, example.value as Record<string, string>) : example?.value;
      return t.api.request(op.method, url, { body, token });
    }

    it.each(ORDER)('%s', async (operationId) => {
      const op = operations.get(operationId);
      if (!op) throw new Error(`${operationId} is not in openapi.yaml`);
      await BEFORE[operationId]?.();
      const expected = documentedSuccess(op.operation);
      const body = bodyExamples(op.operation);
      if (body) expect(body.examples.map((e) => e.name)).not.toEqual([]);
      for (const example of body ? body.examples : [null]) {
        const res = await send(op, example);
        const label = `${op.method} ${op.path}${example ? ` (example "${example.name}")` : ''}`;
        expect({ example: label, status: res.status, body: res.status === expected ? undefined : res.body }).toEqual({
          example: label,
          status: expected,
          body: undefined,
        });
        if (operationId === 'createReward') live.rewards[example!.name] = res.body.reward.id;
        if (operationId === 'createRewardsBulk') expect({ sent: res.body.sent, failed: res.body.failed }).toEqual({ sent: 2, failed: 0 });
        if (operationId === 'createWebhookEndpoint') live.endpoint ??= res.body.webhookEndpoint.id;
        if (operationId === 'oauthToken') live.refreshToken = res.body.refresh_token;
        if (operationId === 'createFxQuote') live.quote = res.body.quote.id;
        if (operationId === 'createTopup') live.topup ??= res.body.topup.id;
        if (operationId === 'createReport') live.report ??= res.body.report.id;
      }
    });
  });
});
