import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError, ErrorCode, FieldIssue, MAX_ISSUES } from './api-error';
import { loggedUrl } from '../logging/secret-params';
import { storeUnavailable } from './store-unavailable';

/** What a client is told to wait before retrying while PostgreSQL or Redis is unreachable. */
export const STORE_UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'insufficient_funds',
  403: 'forbidden',
  404: 'not_found',
  422: 'validation',
  429: 'rate_limited',
};

interface ErrorBody {
  error: ErrorCode;
  message: string;
  issues?: FieldIssue[];
  requestId?: string;
}

/**
 * The one place errors become HTTP. Domain errors keep their code and message; framework errors
 * (unknown route, body parser) are mapped by status; anything else is a bare 500 with the
 * request id, and the details go to the log only, so no stack or SQL ever reaches a client.
 * An error that means PostgreSQL or Redis is unreachable is a 503 with Retry-After instead (the
 * same shape): retrying shortly will likely work.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const { status, body, headers } = this.describe(exception, request);
    if (status === 503 && !(exception instanceof ApiError)) {
      this.logger.warn({ err: exception, requestId: request.id, store: storeUnavailable(exception) }, 'a store is unreachable; answered 503');
    } else if (status >= 500) {
      this.logger.error(
        { err: exception, requestId: request.id, method: request.method, url: loggedUrl(request) },
        'request failed',
      );
    }
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.status(status).json(body);
  }

  private describe(
    exception: unknown,
    request: Request,
  ): { status: number; body: ErrorBody; headers: Record<string, string> } {
    if (exception instanceof ApiError) {
      const body: ErrorBody = { error: exception.code, message: exception.message };
      if (exception.issues) body.issues = exception.issues.slice(0, MAX_ISSUES);
      return { status: exception.status, body, headers: exception.headers };
    }
    const bodyParserError = asBodyParserError(exception);
    if (bodyParserError) return bodyParserError;
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      const status = exception.getStatus();
      const code = CODE_BY_STATUS[status] ?? 'bad_request';
      const message =
        status === 404
          ? `No route for ${request.method} ${request.path}.`
          : status === 400
            ? `Malformed request body: ${frameworkMessage(exception)}`
            : frameworkMessage(exception);
      const body: ErrorBody = { error: code, message };
      if (status === 400) body.issues = [{ path: 'body', message }];
      return { status, body, headers: {} };
    }
    if (storeUnavailable(exception)) {
      return {
        status: 503,
        body: { error: 'internal', message: 'The service is briefly unavailable; retry shortly.', requestId: String(request.id ?? '') },
        headers: { 'Retry-After': String(STORE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
      };
    }
    return {
      status: 500,
      body: { error: 'internal', message: 'Internal server error.', requestId: String(request.id ?? '') },
      headers: {},
    };
  }
}

function frameworkMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/** body-parser errors carry `type` and `status`; they are the client's fault and say so. */
function asBodyParserError(exception: unknown) {
  const candidate = exception as { type?: string; status?: number } | null;
  if (!candidate || typeof candidate.type !== 'string' || typeof candidate.status !== 'number') return null;
  const messages: Record<string, [number, ErrorCode, string]> = {
    'entity.parse.failed': [400, 'bad_request', 'The request body is not valid JSON.'],
    'entity.too.large': [413, 'bad_request', 'The request body is too large.'],
    'encoding.unsupported': [415, 'bad_request', 'The request body encoding is not supported.'],
    'charset.unsupported': [415, 'bad_request', 'The request body charset is not supported.'],
    'request.aborted': [400, 'bad_request', 'The request was aborted.'],
  };
  const known = messages[candidate.type];
  if (!known) return null;
  const [status, code, message] = known;
  return {
    status,
    body: { error: code, message, issues: [{ path: 'body', message }] } as ErrorBody,
    headers: {},
  };
}
