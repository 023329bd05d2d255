import createClient, { type Middleware } from 'openapi-fetch';
import type { paths as DashboardPaths } from '@client/dashboard';
import type { paths as V1Paths } from '@client/schema';

/** One entry of the error shape's `issues`: which field, and what is wrong with it. */
export interface ApiIssue {
  path: string;
  message: string;
}

/** An answer outside 2xx, in the API's error shape (`{error, message, issues?}`). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ApiIssue[] = [],
  ) {
    super(message);
  }

  /** The message the API gave for one field, to show next to it. */
  issueFor(path: string): string | undefined {
    return this.issues.find((issue) => issue.path === path)?.message;
  }
}

let csrfToken: string | null = null;

/** The session's CSRF token, sent on every state-changing request (the cookie alone is not enough). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

/** The public API, typed from openapi.yaml; the session cookie authenticates it. */
export const v1 = createClient<V1Paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
v1.use(csrf);

/** The dashboard-only API (/dashboard/api), typed from openapi.dashboard.yaml; same cookie and CSRF rules. */
export const dash = createClient<DashboardPaths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
dash.use(csrf);

function toFailure(response: Response, body: unknown): ApiFailure {
  const shape = (body ?? {}) as { error?: string; message?: string; issues?: ApiIssue[] };
  return new ApiFailure(response.status, shape.error ?? 'internal', shape.message ?? response.statusText, shape.issues ?? []);
}

/** The data of an openapi-fetch answer, or the ApiFailure it carries. */
export async function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): Promise<T> {
  if (result.response.ok) return result.data as T;
  throw toFailure(result.response, result.error);
}

