import { PATH_METADATA } from '@nestjs/common/constants';

/**
 * Which parts of a request's URL are secrets (docs/operations.md, Logging policy). A route that takes
 * a single-use token or another bearer secret in its path marks the parameter with `@SecretParams()`;
 * paths served outside Nest's routes (the dashboard's deep links) register a pattern. `loggedUrl` is
 * the only way a URL reaches a log line, and replaces every marked segment with `[redacted]`.
 */

const REDACTED = '[redacted]';

/** Query parameters that carry a credential, wherever they appear (OAuth codes and tokens, client secrets). */
export const SECRET_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'code',
  'token',
  'access_token',
  'refresh_token',
  'client_secret',
  'password',
]);

interface MarkedHandler {
  controller: object;
  handler: object;
  params: readonly string[];
}

interface SecretPattern {
  segments: string[];
  params: ReadonlySet<string>;
  /** The pattern ends in `/*`: it covers every path below it too. */
  prefix: boolean;
  /** As registered or computed. */
  source: string;
}

const marked: MarkedHandler[] = [];
const registered: SecretPattern[] = [];
let compiled: { from: number; patterns: SecretPattern[] } | null = null;

/**
 * Marks route parameters of a handler as secrets: the request log shows `[redacted]` in their place.
 * `@SecretParams('token') @Get(':token')`.
 */
export function SecretParams(...params: string[]): MethodDecorator {
  return (target, _key, descriptor) => {
    marked.push({ controller: target.constructor, handler: descriptor.value as object, params });
    compiled = null;
  };
}

/**
 * A path served outside Nest's routes whose `:parameters` are all secrets, for any method; a trailing
 * `/*` covers every path below it (`/r/:token/*`).
 */
export function registerSecretPath(pattern: string): void {
  if (registered.some((known) => known.source === pattern)) return;
  registered.push(compile(pattern.replace(/\/\*$/, ''), null, pattern.endsWith('/*')));
  compiled = null;
}

/**
 * The request's URL as a log line may show it. A path is redacted by every marked pattern it fits,
 * whatever its method: a token sent with the wrong method, or to a route that is not there, is hidden
 * too. A route of the same shape whose parameter is no secret (revoking an invitation by its id) is
 * redacted with it; a log line losing an id is the safe side of that trade.
 */
export function loggedUrl(request: { originalUrl?: string; url?: string }): string {
  const url = request.originalUrl ?? request.url ?? '';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : redactQuery(url.slice(queryAt + 1));
  return `${redactPath(path)}${query ? `?${query}` : ''}`;
}

function redactPath(path: string): string {
  const segments = path.split('/');
  const secret = new Set<number>();
  for (const pattern of secretPatterns()) {
    for (const index of matchSecrets(pattern, segments)) secret.add(index);
  }
  if (secret.size === 0) return path;
  return segments.map((segment, index) => (secret.has(index) ? REDACTED : segment)).join('/');
}

/** The indexes of `segments` (the request path split on `/`) that pattern marks secret, if it fits. */
function matchSecrets(pattern: SecretPattern, segments: string[]): number[] {
  // Express ignores a trailing slash and tolerates doubled ones in unrouted paths; compare the
  // non-empty segments, and keep where each one was.
  const present = segments.map((segment, index) => ({ segment, index })).filter(({ segment }) => segment !== '');
  if (present.length < pattern.segments.length || (!pattern.prefix && present.length !== pattern.segments.length)) return [];
  const found: number[] = [];
  for (let i = 0; i < pattern.segments.length; i += 1) {
    const expected = pattern.segments[i];
    const { segment, index } = present[i];
    if (expected.startsWith(':')) {
      if (pattern.params.has(expected.slice(1))) found.push(index);
    } else if (expected.toLowerCase() !== segment.toLowerCase()) {
      return [];
    }
  }
  return found;
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      const at = part.indexOf('=');
      const name = at === -1 ? part : part.slice(0, at);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Malformed escapes: compare the name as sent.
      }
      return SECRET_QUERY_PARAMETERS.has(decoded.toLowerCase()) ? `${name}=${REDACTED}` : part;
    })
    .join('&');
}

function secretPatterns(): SecretPattern[] {
  if (compiled && compiled.from === marked.length + registered.length) return compiled.patterns;
  const patterns = [...registered];
  for (const { controller, handler, params } of marked) {
    for (const base of asList(Reflect.getMetadata(PATH_METADATA, controller))) {
      for (const own of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
        const path = `/${[base, own].map((part) => part.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
        patterns.push(compile(path, params, false));
      }
    }
  }
  compiled = { from: marked.length + registered.length, patterns };
  return patterns;
}

function compile(path: string, params: readonly string[] | null, prefix: boolean): SecretPattern {
  const segments = path.split('/').filter(Boolean);
  const names = segments.filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
  return { segments, params: new Set(params ?? names), prefix, source: prefix ? `${path}/*` : path };
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [typeof value === 'string' ? value : '/'];
}
