import type { NextFunction, Request, Response } from 'express';

/** The merchant API and the dashboard's API: every answer may carry a secret or an account's data. */
const PRIVATE_API = /^\/(?:v1|dashboard\/api)(?:\/|$)/;

/**
 * `Cache-Control: no-store` on every response of /v1 and /dashboard/api, errors included, set before
 * anything answers (docs/errors.md, Caching): a new API key, a TOTP or webhook secret, card credentials
 * must never sit in a browser's or a proxy's cache, and marking every response is the rule nobody can
 * forget on a new route. A route with a documented cache policy of its own (the catalog) sets it over this.
 */
export function noStore(request: Request, response: Response, next: NextFunction): void {
  if (PRIVATE_API.test(request.path)) response.setHeader('Cache-Control', 'no-store');
  next();
}
