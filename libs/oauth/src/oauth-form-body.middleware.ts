import { urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';

/** The app-facing endpoints that take form-encoded bodies and answer in RFC 6749 terms. */
export const OAUTH_FORM_PATHS = ['/oauth/token', '/oauth/revoke'];

/** The largest form body they read; past it, 413. */
export const OAUTH_FORM_BODY_LIMIT = '100kb';

const parse = urlencoded({ extended: true, limit: OAUTH_FORM_BODY_LIMIT });

/** body-parser's failures that are the client's fault: the status to answer and what to say. */
const BODY_PROBLEMS: Record<string, [number, string]> = {
  'entity.too.large': [413, `The request body is larger than ${OAUTH_FORM_BODY_LIMIT.replace('kb', ' KB')}.`],
  'parameters.too.many': [413, 'The request body has too many parameters.'],
  'entity.parse.failed': [400, 'The request body is not a valid form encoding.'],
  'charset.unsupported': [415, 'The request body must be UTF-8.'],
  'encoding.unsupported': [415, 'The request body encoding is not supported.'],
  'request.aborted': [400, 'The request was aborted.'],
  'request.size.invalid': [400, 'The request body is not as long as its Content-Length says.'],
};

/**
 * Reads the form body of the token and revoke endpoints ahead of the service-wide parser, so a
 * body it cannot read is answered as RFC 6749 wants (`{error: "invalid_request", error_description}`,
 * never cached) instead of in the /v1 error shape. The status stays what it says: 413 for too large.
 * Applied before the application starts (configureApp); the service-wide parser then skips the body.
 */
export function oauthFormBody(req: Request, res: Response, next: NextFunction): void {
  parse(req, res, (error?: unknown) => {
    if (!error) return next();
    const problem = BODY_PROBLEMS[(error as { type?: string }).type ?? ''];
    if (!problem) return next(error);
    const [status, description] = problem;
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    res.status(status).json({ error: 'invalid_request', error_description: description });
  });
}
