/**
 * Domain errors carry the public error code (docs/errors.md); ApiExceptionFilter turns them into
 * `{error, message}` responses. Services throw these, never Nest's HttpException.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'insufficient_funds'
  | 'forbidden'
  | 'not_found'
  | 'validation'
  | 'rate_limited'
  | 'internal'
  /** Dashboard sign-in only: the password was right and a two-factor code is needed too. */
  | 'totp_required';

export interface FieldIssue {
  /** Dotted path of the offending field, `body` for the body as a whole. */
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly issues?: FieldIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The most issues a 400 lists (docs/errors.md): a body with a million wrong values is answered with the
 * first hundred, and the message says how many more there were.
 */
export const MAX_ISSUES = 100;

export class BadRequestError extends ApiError {
  constructor(issues: FieldIssue[], message = describeIssues(issues)) {
    super(400, 'bad_request', message, issues.slice(0, MAX_ISSUES));
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'Missing, invalid or revoked credential.', headers: Record<string, string> = {}) {
    super(401, 'unauthorized', message, undefined, headers);
  }
}

export class InsufficientFundsError extends ApiError {
  constructor(message = 'The wallet balance is too low for this request.') {
    super(402, 'insufficient_funds', message);
  }
}

export class ForbiddenError extends ApiError {
  constructor(message: string, headers: Record<string, string> = {}) {
    super(403, 'forbidden', message, undefined, headers);
  }
}

/**
 * 403 for a bearer credential (API key or OAuth token) that lacks a scope: RFC 6750 §3.1's
 * `insufficient_scope` challenge names the scope the request needs.
 */
export class InsufficientScopeError extends ForbiddenError {
  constructor(scope: string, message = `This credential lacks the scope ${scope} that this endpoint requires.`) {
    super(message, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` });
  }
}

export class NotFoundError extends ApiError {
  constructor(what: string) {
    super(404, 'not_found', `${what} not found.`);
  }
}

/** 422: the request is well formed but cannot be fulfilled. */
export class ValidationError extends ApiError {
  constructor(message: string) {
    super(422, 'validation', message);
  }
}

export class RateLimitedError extends ApiError {
  constructor(retryAfterSeconds: number, message = 'Too many requests; retry later.') {
    super(429, 'rate_limited', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 502: a service this one depends on could not be reached; nothing was done. */
export class UpstreamUnavailableError extends ApiError {
  constructor(message: string) {
    super(502, 'internal', message);
  }
}

/** 503: the request may well succeed if retried shortly (something it needs is busy); `Retry-After` says when. */
export class UnavailableError extends ApiError {
  constructor(message: string, retryAfterSeconds = 1) {
    super(503, 'internal', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}

function describeIssues(issues: FieldIssue[]): string {
  if (issues.length === 0) return 'Malformed request.';
  const listed = issues.slice(0, MAX_ISSUES).map((i) => `${i.path}: ${i.message}`).join('; ');
  const more = issues.length - MAX_ISSUES;
  return `Invalid request: ${listed}${more > 0 ? `; and ${more} more issue${more === 1 ? '' : 's'} not listed` : ''}`;
}
