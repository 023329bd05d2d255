import type { NestApplicationOptions } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { ApiExceptionFilter, ApiValidationPipe, APP_CONFIG, AppConfig, httpMetrics, jsonBodyOnly, noStore, safeInput } from '@app/core';
import { OAUTH_FORM_PATHS, oauthFormBody } from '@app/oauth';
import { serveDashboard } from './dashboard-static';
import { buildOpenApiDocument } from './openapi-document';

/** Creation options: the raw body is kept for signature checks (Stripe webhooks). */
export const API_APP_OPTIONS: NestApplicationOptions = { bufferLogs: true, rawBody: true };

/** How long an idle keep-alive connection stays open (above a load balancer's usual 60 s idle timeout). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Everything main() and the e2e tests both apply to the HTTP app, so tests run what ships. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // No automatic ETag: Express would hash every response body (60 KB for a list page of 100
  // rewards) for a validator no endpoint documents. The catalog, which does, sets its own (docs/catalog.md).
  app.set('etag', false);
  // Which X-Forwarded-For hops to believe when working out the client address (TRUST_PROXY).
  app.set('trust proxy', app.get<AppConfig>(APP_CONFIG).trustProxy);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          // Swagger UI at /docs styles itself inline; nothing else needs more than 'self'.
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:', 'https:'],
        },
      },
    }),
  );
  // Idle keep-alive connections live 65 s, longer than a load balancer's idle timeout (60 s is the common
  // default): the balancer, not this process, closes an idle connection, so it never sends a request on a
  // socket this side has just closed (a reset, a 502 to the client). docs/scaling.md, API processes.
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  closeConnectionsAsTheyFinishOnShutdown(server);
  app.use(httpMetrics);
  app.use(noStore);
  app.use(jsonBodyOnly);
  app.useBodyParser('json', { limit: '1mb' });
  // Before the service-wide form parser: the OAuth endpoints report unreadable bodies in RFC 6749's shape.
  app.use(OAUTH_FORM_PATHS, oauthFormBody);
  app.use(safeInput);
  app.useGlobalPipes(new ApiValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter());
  serveDashboard(app);

  // Built on the first request to /docs, not at every start: the document of ~180 operations costs about a
  // second of CPU, paid by each process (and each test's app) whether or not anyone reads it.
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Rewards API',
  });
  return app;
}

/**
 * Once the server is closing, each connection closes as soon as its last response is written. Node's
 * close() ends only the connections idle at that moment; one whose request was still in flight would
 * stay open, idle, for the whole keep-alive timeout and hold the shutdown that long.
 */
function closeConnectionsAsTheyFinishOnShutdown(server: Server): void {
  let closing = false;
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    closing = true;
    return close(callback);
  };
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    response.on('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
}
