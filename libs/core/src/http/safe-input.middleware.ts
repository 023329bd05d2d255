import type { NextFunction, Request, Response } from 'express';

/** How deep a JSON body may nest. Our deepest request (a bulk item's recipient) is 4 levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * Input PostgreSQL or the validator cannot take is refused here with a 400 in the error shape,
 * before anything reads it (docs/errors.md):
 * - a NUL character (U+0000) anywhere in the path, the query or a string of the JSON body:
 *   PostgreSQL refuses it in text, and the client would get a 500 it is told to retry;
 * - a JSON body nested deeper than MAX_JSON_DEPTH: validating it recursively would overflow the
 *   stack. The walk here keeps its own stack, so no depth can make it recurse.
 * Runs after the JSON parser, on every route.
 */
export function safeInput(request: Request, response: Response, next: NextFunction): void {
  const refuse = (path: string, message: string) => {
    response.status(400).json({ error: 'bad_request', message, issues: [{ path, message }] });
  };
  if (/%00/.test(request.originalUrl) || request.originalUrl.includes('\u0000')) {
    return refuse(request.originalUrl.split('?')[0].includes('%00') ? 'path' : 'query', 'The request contains a NUL character (U+0000), which no field accepts.');
  }
  // Only JSON bodies: the OAuth endpoints' form bodies answer in their own (RFC 6749) error shape.
  const problem = request.is(['application/json', '+json']) ? inspectBody(request.body) : null;
  if (problem) return refuse(problem.path, problem.message);
  next();
}

/** The first NUL string or over-deep nesting in a parsed JSON value, walked without recursion. */
export function inspectBody(body: unknown): { path: string; message: string } | null {
  if (body === null || typeof body !== 'object') {
    return typeof body === 'string' && body.includes('\u0000') ? { path: 'body', message: 'A string contains a NUL character (U+0000).' } : null;
  }
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 1 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path: path || 'body', message: 'A string contains a NUL character (U+0000).' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return { path: 'body', message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.` };
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return { path: path || 'body', message: 'A key contains a NUL character (U+0000).' };
      stack.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}
