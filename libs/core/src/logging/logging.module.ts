import { randomUUID } from 'node:crypto';
import { DynamicModule, Module } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config';
import { loggedUrl } from './secret-params';
import { serializeErrorSafely } from './safe-error.serializer';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Structured JSON logs, one line per request, credentials redacted, database errors without their values. */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            // A caller's X-Request-Id is kept when it is sane, so traces join up across services.
            genReqId: (request: IncomingMessage, response: ServerResponse) => {
              const given = request.headers['x-request-id'];
              const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
              response.setHeader('X-Request-Id', id);
              return id;
            },
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
              censor: '[redacted]',
            },
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({
                id: req.id,
                method: req.method,
                url: loggedUrl(req),
              }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
              err: serializeErrorSafely,
            },
            autoLogging: { ignore: (request) => (request.url ?? '').startsWith('/health') },
          },
        }),
      ],
    };
  }
}
