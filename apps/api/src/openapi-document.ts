import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AuditModule } from '@app/audit';
import { DashboardModule } from '@app/dashboard';
import { RedemptionPreviewModule } from '@app/redemption';
import { ApprovalsDashboardModule } from '@app/rewards';
import { OAUTH_SCOPES } from '@app/auth';
import { applyContractConventions } from './openapi-conventions';
import { applyValidatorRules } from './openapi-validation';
import { addWebhookEvents } from './openapi-webhooks';

const DESCRIPTION = `Send digital gift-card rewards from a prepaid wallet.

Money is integer cents (\`valueCents\`, \`amountCents\`, ...) everywhere except the catalog's
\`faceValue\`, \`minValue\` and \`maxValue\`, which are major units of the item's currency (25 means
25.00: send \`valueCents: 2500\` for it). Every error is \`{error, message}\`; a 400 adds \`issues\`
(the OAuth token and revoke endpoints answer RFC 6749's \`{error, error_description}\` instead).
Authenticate with \`Authorization: Bearer <API key or OAuth access token>\`. Requests are limited to
300 a minute per credential (\`RateLimit-*\` headers; \`429\` with \`Retry-After\`). Marketplace apps
get an access token with the OAuth 2.0 authorization code flow with PKCE (the \`oauth2\` scheme).

Requests are checked strictly: a body field its schema does not list, \`null\` for a field not marked
\`nullable\`, and on an operation that lists query parameters any other one, are each \`400\` naming it
(an operation that lists none ignores the query string). Every answer carries \`X-Request-Id\` (yours
when you send a sane one): quote it when asking about a request.`;

const SCOPE_DESCRIPTIONS: Record<(typeof OAUTH_SCOPES)[number], string> = {
  'account:read': 'Read the account, its branding, overview and catalog rules.',
  'catalog:read': 'Read the catalog.',
  'rewards:read': 'Read rewards.',
  'rewards:write': 'Send, cancel and resend rewards (spends the wallet).',
  'wallet:read': 'Read the wallet, its ledger and top-ups.',
  'webhooks:read': 'Read webhook endpoints and deliveries.',
  'webhooks:write': 'Create, change, test and delete webhook endpoints.',
};

/** The OpenAPI document the app serves at /docs/openapi.json; openapi.yaml is this, committed. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Rewards API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'An `sk_` API key or an OAuth access token.' },
      'bearer',
    )
    .addOAuth2(
      {
        type: 'oauth2',
        description:
          'Marketplace apps: the authorization code flow with PKCE (S256), client_secret_basic at the token endpoint ' +
          '(RFC 6749, RFC 7636; metadata at /.well-known/oauth-authorization-server). The access token is sent as `Authorization: Bearer`.',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth/authorize',
            tokenUrl: '/oauth/token',
            refreshUrl: '/oauth/token',
            scopes: Object.fromEntries(OAUTH_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]])),
          },
        },
      },
      'oauth2',
    )
    .addBasicAuth(
      { type: 'http', scheme: 'basic', description: 'OAuth client_id and client_secret (client_secret_basic, RFC 6749 §2.3.1).' },
      'client_secret_basic',
    );
  const document = SwaggerModule.createDocument(app, withServers(config).build(), {
    // The dashboard-only API is not part of the public contract: it has its own document.
    include: modulesExcept(app, DashboardModule),
    operationIdFactory: (controllerKey: string, methodKey: string) => `${controllerKey}_${methodKey}`,
  });
  return applyContractConventions(applyValidatorRules(addWebhookEvents(withoutDashboardRoutes(document))));
}

/**
 * The dashboard's own API (`/dashboard/api`) is not part of the public contract: no API key or
 * OAuth token can use it. Its paths, and the schemas only they use, are left out of this document.
 */
function withoutDashboardRoutes(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.keys(document.paths)) if (path.startsWith('/dashboard/')) delete document.paths[path];
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else visit(value);
      }
    }
  };
  visit(document.paths);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return document;
}

const DASHBOARD_DESCRIPTION = `The dashboard-only API: sign-in sessions, the team, API keys, connected apps and
one's own password and two-factor sign-in. Only a dashboard session may call it: an API key or OAuth
token gets \`401\`. Sign in with \`POST /dashboard/api/session\`; the answer sets the \`dashboard_session\`
cookie (\`__Host-dashboard_session\` on https) and carries a \`csrfToken\`. Every POST, PATCH, PUT and
DELETE made with the cookie must send it as \`X-CSRF-Token\` (\`403\` otherwise), and an \`Origin\`
header, when sent, must be the service's own. The same cookie works on \`/v1\`, acting on the
session's current account with the scopes of the user's role there. Errors are \`{error, message}\`.`;

/** The dashboard-only API's document; openapi.dashboard.yaml is this, committed. */
export function buildDashboardOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Rewards dashboard API')
    .setDescription(DASHBOARD_DESCRIPTION)
    .setVersion('1.0.0')
    .addCookieAuth('dashboard_session', { type: 'apiKey', in: 'cookie', description: 'The session cookie set at sign-in.' }, 'session');
  return SwaggerModule.createDocument(app, withServers(config).build(), {
    include: [DashboardModule, AuditModule, ApprovalsDashboardModule, RedemptionPreviewModule],
    operationIdFactory: (controllerKey: string, methodKey: string) => `${controllerKey}_${methodKey}`,
  });
}

/**
 * Paths are relative to the deployment's PUBLIC_BASE_URL: http://localhost:3000 by default (local
 * development), an https origin in production (`rewards.invalid` is a placeholder, RFC 2606).
 */
function withServers(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .addServer('http://localhost:3000', 'Local development: the default PUBLIC_BASE_URL.', undefined, { 'x-internal': true })
    .addServer('{baseUrl}', "Production: the deployment's PUBLIC_BASE_URL (https).", {
      baseUrl: { default: 'https://rewards.invalid', description: "The deployment's PUBLIC_BASE_URL, without a trailing slash." },
    }, { 'x-internal': false });
}

type ModuleClass = ReturnType<typeof modulesOf>[number];

function modulesOf(app: INestApplication) {
  return [...app.get(ModulesContainer).values()].map((module) => module.metatype);
}

function modulesExcept(app: INestApplication, excluded: ModuleClass): ModuleClass[] {
  return modulesOf(app).filter((type) => type !== excluded);
}
