import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { parse } from 'yaml';
import { DASHBOARD_ONLY, PUBLIC_ROUTE, REQUIRED_SCOPE, SIGNED_IN_ROUTE } from '@app/auth';
import { buildDashboardOpenApiDocument, buildOpenApiDocument } from '../../apps/api/src/openapi-document';
import { OPENAPI_PATH } from '../support/contract';
import { DASHBOARD_OPENAPI_PATH } from '../support/dashboard-client';
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
  'GET /v1/account/overview/daily': 'account:read',
  'PATCH /v1/account/branding': 'account:write',
  'PATCH /v1/rewards/:id': 'rewards:write',
  'GET /v1/account/alert-settings': 'account:read',
  'PUT /v1/account/alert-settings': 'account:write',
  'GET /v1/account/approval-settings': 'account:read',
  'PUT /v1/account/approval-settings': 'account:write',
  'GET /v1/account/reminder-settings': 'account:read',
  'PUT /v1/account/reminder-settings': 'account:write',
  'GET /v1/account/catalog-rules': 'account:read',
  'PUT /v1/account/catalog-rules': 'account:write',
  // Dashboard-only: a scope no API key or OAuth token can hold.
  'GET /dashboard/api/audit-log': 'dashboard audit_log:read',
  'GET /v1/wallet': 'wallet:read',
  'GET /v1/wallet/transactions': 'wallet:read',
  'GET /v1/wallet/statements/:month': 'wallet:read',
  'GET /v1/wallets': 'wallet:read',
  'POST /v1/topups': 'wallet:write',
  'GET /v1/topups': 'wallet:read',
  'GET /v1/topups/:id/receipt': 'wallet:read',
  'POST /webhooks/stripe': 'public',
  'GET /checkout/complete': 'public',
  'GET /checkout/canceled': 'public',
  'POST /v1/rewards': 'rewards:write',
  'POST /v1/rewards/bulk': 'rewards:write',
  'GET /v1/rewards': 'rewards:read',
  'GET /v1/rewards/:id': 'rewards:read',
  // And wallet:read, checked by the handler (a route declares one scope).
  'GET /v1/rewards/:id/ledger': 'rewards:read',
  'POST /v1/rewards/:id/cancel': 'rewards:write',
  'POST /v1/rewards/:id/resend': 'rewards:write',
  // Any of the two; the handler checks the one the report's type needs (docs/reports.md).
  'POST /v1/reports': 'rewards:read,wallet:read',
  'GET /v1/reports': 'rewards:read,wallet:read',
  'GET /v1/reports/:id': 'rewards:read,wallet:read',
  'GET /v1/reports/:id/download': 'rewards:read,wallet:read',
  'GET /v1/catalog': 'catalog:read',
  'GET /v1/catalog/brands/:brandKey': 'catalog:read',
  'GET /v1/fx/rates': 'wallet:read',
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
  'POST /v1/webhook-endpoints/:id/replay': 'webhooks:write',
  'GET /v1/events': 'webhooks:read',
  'GET /v1/events/:id': 'webhooks:read',
  // OAuth: the browser pages and the app-facing endpoints take no bearer credential.
  'GET /oauth/authorize': 'public',
  'POST /oauth/authorize/sign-in': 'public',
  'POST /oauth/authorize/two-factor': 'public',
  'POST /oauth/authorize/decision': 'public',
  'POST /oauth/token': 'public',
  'POST /oauth/revoke': 'public',
  'GET /.well-known/oauth-authorization-server': 'public',
  // The recipient's redemption page and its API: the link token is the credential.
  'GET /r/assets/redeem.js': 'public',
  'GET /r/:token': 'public',
  'GET /r/:token/api': 'public',
  'POST /r/:token/api/cards': 'public',
  'POST /v1/fx/conversions': 'wallet:write',
  'POST /v1/fx/quotes': 'wallet:read',
  // The dashboard-only API: `dashboard <scope>` is a role's permission that only a session carries;
  // `signed-in` needs a session but no account; `public` routes are sign-in, invitation links and resets.
  'POST /dashboard/api/session': 'public',
  'GET /dashboard/api/session': 'signed-in',
  'DELETE /dashboard/api/session': 'signed-in',
  'POST /dashboard/api/session/account': 'signed-in',
  'GET /dashboard/api/members': 'dashboard team:manage',
  'PATCH /dashboard/api/members/:userId': 'dashboard team:manage',
  'DELETE /dashboard/api/members/:userId': 'dashboard team:manage',
  'GET /dashboard/api/invitations': 'dashboard team:manage',
  'POST /dashboard/api/invitations': 'dashboard team:manage',
  'DELETE /dashboard/api/invitations/:invitation': 'dashboard team:manage',
  'GET /dashboard/api/invitations/:invitation': 'public',
  'POST /dashboard/api/invitations/:invitation/accept': 'public',
  'POST /dashboard/api/invitations/:invitation/resend': 'dashboard team:manage',
  'GET /dashboard/api/api-keys': 'dashboard api_keys:manage',
  'GET /dashboard/api/approvals': 'dashboard rewards:read',
  'GET /dashboard/api/approvals/count': 'dashboard rewards:read',
  'POST /dashboard/api/approvals/:rewardId/approve': 'dashboard rewards:write',
  'POST /dashboard/api/approvals/:rewardId/reject': 'dashboard rewards:write',
  'GET /dashboard/api/rewards/:rewardId/recipient-preview': 'dashboard rewards:read',
  'POST /dashboard/api/api-keys': 'dashboard api_keys:manage',
  'DELETE /dashboard/api/api-keys/:id': 'dashboard api_keys:manage',
  'GET /dashboard/api/connected-apps': 'dashboard connected_apps:manage',
  'DELETE /dashboard/api/connected-apps/:id': 'dashboard connected_apps:manage',
  'POST /dashboard/api/me/password': 'signed-in',
  'POST /dashboard/api/me/totp': 'signed-in',
  'POST /dashboard/api/me/totp/confirm': 'signed-in',
  'POST /dashboard/api/me/totp/disable': 'signed-in',
  'POST /dashboard/api/password-reset': 'public',
  'POST /dashboard/api/password-reset/:token': 'public',
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

  it('the generated dashboard document equals the committed openapi.dashboard.yaml', () => {
    const generated = JSON.parse(JSON.stringify(buildDashboardOpenApiDocument(t.app)));
    const committed = parse(readFileSync(DASHBOARD_OPENAPI_PATH, 'utf8'));
    if (!isDeepStrictEqual(generated, committed)) {
      expect(generated).toEqual(committed); // shows the difference
    }
  });

  it('openapi.yaml, the public contract, has no dashboard route; the dashboard document has only those', () => {
    const publicPaths = Object.keys(parse(readFileSync(OPENAPI_PATH, 'utf8')).paths);
    const dashboardPaths = Object.keys(parse(readFileSync(DASHBOARD_OPENAPI_PATH, 'utf8')).paths);
    expect(publicPaths.filter((path) => path.startsWith('/dashboard'))).toEqual([]);
    expect(dashboardPaths.filter((path) => !path.startsWith('/dashboard/api/'))).toEqual([]);
    expect(dashboardPaths.length).toBeGreaterThan(0);
  });

  it('documents every query parameter as optional (filters, page, page_size), as docs/errors.md describes them', () => {
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
        const dashboardOnly = reflector.get(DASHBOARD_ONLY, handler);
        const signedIn = reflector.get(SIGNED_IN_ROUTE, handler);
        const isPublic = reflector.getAllAndOverride(PUBLIC_ROUTE, [handler, metatype]);
        const declared = scope ? `${dashboardOnly ? 'dashboard ' : ''}${scope}` : signedIn ? 'signed-in' : isPublic ? 'public' : 'NONE';
        // A dashboard route must be dashboard-only, signed-in or deliberately public: never a plain API scope.
        routes[`${method} ${full}`] = full.startsWith('/dashboard/api') && scope && !dashboardOnly ? `API scope ${scope}?` : declared;
      }
    }
    expect(routes).toEqual(EXPECTED_ROUTES);
  });
});
