import type { NextFunction, Request, Response } from 'express';

/** The JSON APIs: /v1 and the redemption page's card pick. OAuth and Stripe read bodies of their own. */
const JSON_API = /^\/(?:v1\/|r\/[^/]+\/api(?:\/|$))/;

/**
 * A body that is not JSON, sent where JSON is expected, is answered 415 in the error shape. Without
 * this the JSON parser skips it, and the client gets a 400 about missing fields it did send.
 */
export function jsonBodyOnly(request: Request, response: Response, next: NextFunction): void {
  if (!JSON_API.test(request.path) || !carriesBody(request) || request.is(['application/json', '+json'])) return next();
  const message = 'The request body must be JSON: send `Content-Type: application/json`.';
  response.status(415).json({ error: 'bad_request', message, issues: [{ path: 'body', message }] });
}

function carriesBody(request: Request): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && Number(length) > 0;
}
