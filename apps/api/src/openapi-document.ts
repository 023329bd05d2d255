import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { applyContractConventions } from './openapi-conventions';
import { addWebhookEvents } from './openapi-webhooks';

const DESCRIPTION = `Send digital gift-card rewards from a prepaid wallet.

All monetary values are integer cents. Every error is \`{error, message}\`; a 400 adds \`issues\`
(the OAuth token and revoke endpoints answer RFC 6749's \`{error, error_description}\` instead).
Authenticate with \`Authorization: Bearer <API key or OAuth access token>\`. Requests are limited to
300 a minute per credential (\`RateLimit-*\` headers; \`429\` with \`Retry-After\`).`;

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
    .addBasicAuth(
      { type: 'http', scheme: 'basic', description: 'OAuth client_id and client_secret (client_secret_basic, RFC 6749 §2.3.1).' },
      'client_secret_basic',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) => `${controllerKey}_${methodKey}`,
  });
  return applyContractConventions(addWebhookEvents(document));
}
