import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { parse } from 'yaml';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from '@app/auth';
import { buildOpenApiDocument } from '../../apps/api/src/openapi-document';
import { OPENAPI_PATH } from '../support/contract';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every route and what it takes. A new route must be added here with its scope (or `public`):
 * a route without a declared scope fails this test, so no endpoint ships open by accident.
 */
const EXPECTED_ROUTES: Record<string, string> = {
  'GET /health/live': 'public',
  'GET /health/ready': 'public',
  // Prometheus metrics: guarded by METRICS_TOKEN or loopback, not by an API credential.
  'GET /metrics': 'public',
  'GET /v1/account': 'account:read',
  'GET /v1/account/overview': 'account:read',
  'PATCH /v1/account/branding': 'account:write',
  'GET /v1/wallet': 'wallet:read',
  'GET /v1/wallet/transactions': 'wallet:read',
  'POST /v1/topups': 'wallet:write',
  'GET /v1/topups': 'wallet:read',
  'POST /webhooks/stripe': 'public',
  'GET /checkout/complete': 'public',
  'GET /checkout/canceled': 'public',
  'POST /v1/rewards': 'rewards:write',
  'POST /v1/rewards/bulk': 'rewards:write',
  'GET /v1/rewards': 'rewards:read',
  'GET /v1/rewards/:id': 'rewards:read',
  'POST /v1/rewards/:id/cancel': 'rewards:write',
  'POST /v1/rewards/:id/resend': 'rewards:write',
  'GET /v1/catalog': 'catalog:read',
  'GET /v1/catalog/brands/:brandKey': 'catalog:read',
  'POST /v1/webhook-endpoints': 'webhooks:write',
  'GET /v1/webhook-endpoints': 'webhooks:read',
  'GET /v1/webhook-endpoints/:id': 'webhooks:read',
  'PATCH /v1/webhook-endpoints/:id': 'webhooks:write',
  'DELETE /v1/webhook-endpoints/:id': 'webhooks:write',
  'POST /v1/webhook-endpoints/:id/rotate-secret': 'webhooks:write',
  'POST /v1/webhook-endpoints/:id/test': 'webhooks:write',
  'GET /v1/webhook-endpoints/:id/deliveries': 'webhooks:read',
  'GET /v1/webhook-endpoints/:id/deliveries/:deliveryId': 'webhooks:read',
  'POST /v1/webhook-endpoints/:id/deliveries/:deliveryId/retry': 'webhooks:write',
  // OAuth: the browser pages and the app-facing endpoints take no bearer credential.
  'GET /oauth/authorize': 'public',
  'POST /oauth/authorize/sign-in': 'public',
  'POST /oauth/authorize/decision': 'public',
  'POST /oauth/token': 'public',
  'POST /oauth/revoke': 'public',
  'GET /.well-known/oauth-authorization-server': 'public',
  // The recipient's redemption page and its API: the link token is the credential.
  'GET /r/assets/redeem.js': 'public',
  'GET /r/:token': 'public',
  'GET /r/:token/api': 'public',
  'POST /r/:token/api/cards': 'public',
};

describe('OpenAPI contract and route scopes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('the generated document equals the committed openapi.yaml (run `npm run openapi` after a change)', () => {
    const generated = JSON.parse(JSON.stringify(buildOpenApiDocument(t.app)));
    const committed = parse(readFileSync(OPENAPI_PATH, 'utf8'));
    if (!isDeepStrictEqual(generated, committed)) {
      expect(generated).toEqual(committed); // shows the difference
    }
  });

  it('documents every query parameter as optional, as SPEC.md defines them (filters, page, page_size)', () => {
    const committed = parse(readFileSync(OPENAPI_PATH, 'utf8'));
    const required = Object.entries<any>(committed.paths).flatMap(([path, operations]) =>
      Object.entries<any>(operations).flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          .filter((p: any) => p.in === 'query' && p.required)
          .map((p: any) => `${method.toUpperCase()} ${path} ?${p.name}`),
      ),
    );
    expect(required).toEqual([]);
  });

  it('every route declares a scope or is explicitly public, and matches the expected table', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = t.app.get(MetadataScanner);
    const reflector = t.app.get(Reflector);
    const routes: Record<string, string> = {};
    for (const wrapper of discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const prefix = String(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
      const prototype = Object.getPrototypeOf(instance);
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        const path = Reflect.getMetadata(PATH_METADATA, handler);
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const full = `/${[prefix, path].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/');
        const scope = reflector.get(REQUIRED_SCOPE, handler);
        const isPublic = reflector.getAllAndOverride(PUBLIC_ROUTE, [handler, metatype]);
        routes[`${method} ${full}`] = scope ?? (isPublic ? 'public' : 'NONE');
      }
    }
    expect(routes).toEqual(EXPECTED_ROUTES);
  });
});
