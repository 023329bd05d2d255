import type { NextFunction, Request, Response } from 'express';

/** How deep a JSON body may nest. Our deepest request (a bulk item's recipient) is 4 levels. */
export const MAX_JSON_DEPTH = 32;

/** The longest array a JSON body may hold. Our longest lists (catalog rules) take 1,000 entries. */
export const MAX_JSON_ARRAY_LENGTH = 1000;

const NUL = 'A string contains a NUL character (U+0000).';
const LONE_SURROGATE = 'A string is not valid Unicode: it holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape).';

/**
 * Input PostgreSQL or the validator cannot take is refused here with a 400 in the error shape,
 * before anything reads it (docs/errors.md):
 * - a NUL character (U+0000) anywhere in the path, the query or a string of the JSON body:
 *   PostgreSQL refuses it in text, and the client would get a 500 it is told to retry;
 * - a string of the JSON body (or a key) that is not well-formed Unicode, a lone surrogate escape
 *   such as `"\ud800"`: PostgreSQL cannot store it in jsonb or text;
 * - a JSON body nested deeper than MAX_JSON_DEPTH: validating it recursively would overflow the
 *   stack. The walk here keeps its own stack, so no depth can make it recurse;
 * - an array longer than MAX_JSON_ARRAY_LENGTH: validating its elements one by one would cost time
 *   and issues in proportion to it, for a request no route takes.
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

/** The first problem of a parsed JSON value (above), walked without recursion. */
export function inspectBody(body: unknown): { path: string; message: string } | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 1 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) return { path: path || 'body', message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return { path: 'body', message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.` };
    if (Array.isArray(value) && value.length > MAX_JSON_ARRAY_LENGTH) {
      return { path: path || 'body', message: `An array holds ${value.length} entries; at most ${MAX_JSON_ARRAY_LENGTH} are accepted.` };
    }
    for (const [key, child] of Object.entries(value)) {
      const keyProblem = stringProblem(key);
      if (keyProblem) return { path: path || 'body', message: keyProblem.replace('A string', 'A key') };
      stack.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return NUL;
  // String.prototype.isWellFormed (Node 20): false exactly when a surrogate is unpaired.
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return LONE_SURROGATE;
  return null;
}
