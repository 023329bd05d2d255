import type { Request } from 'express';
import { constantTimeEqual, ForbiddenError } from '@app/core';

/**
 * A session cookie: HttpOnly, Path=/, and on https the `__Host-` prefix with Secure, which binds it
 * to our exact origin (browsers accept such a cookie only when Secure, with Path=/ and no Domain).
 */
export class SessionCookie {
  readonly name: string;

  constructor(
    baseName: string,
    private readonly secure: boolean,
    private readonly sameSite: 'Strict' | 'Lax',
    private readonly maxAgeSeconds: number,
  ) {
    this.name = secure ? `__Host-${baseName}` : baseName;
  }

  /** Set-Cookie value that sets `token`, or clears the cookie when null. */
  header(token: string | null): string {
    const value = token ? [`${this.name}=${token}`, `Max-Age=${this.maxAgeSeconds}`] : [`${this.name}=`, 'Max-Age=0'];
    return [...value, 'Path=/', 'HttpOnly', `SameSite=${this.sameSite}`, ...(this.secure ? ['Secure'] : [])].join('; ');
  }

  /** The cookie's value in a Cookie header. */
  valueFrom(cookieHeader: string | undefined): string | undefined {
    for (const part of (cookieHeader ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === this.name) return value.join('=') || undefined;
    }
    return undefined;
  }
}

/** The dashboard's cookie, `dashboard_session` (`__Host-dashboard_session` when the service is on https). */
export function dashboardSessionCookie(publicBaseUrl: string, maxAgeSeconds: number): SessionCookie {
  return new SessionCookie('dashboard_session', publicBaseUrl.startsWith('https:'), 'Strict', maxAgeSeconds);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The CSRF header a cookie-authenticated request that changes something must carry. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * A cookie goes with every request the browser makes to us, including ones another site triggers:
 * a request that changes something must also prove it was made by our page (the session's CSRF
 * token, which another site cannot read) and, when the browser says where it came from, come from
 * our own origin.
 */
export function assertSameSiteRequest(request: Request, csrfToken: string, publicBaseUrl: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  assertOwnOrigin(request, publicBaseUrl);
  const presented = request.headers[CSRF_HEADER];
  if (typeof presented !== 'string' || !constantTimeEqual(presented, csrfToken)) {
    throw new ForbiddenError('Missing or wrong X-CSRF-Token header.');
  }
}

/**
 * An `Origin` header, when sent, must be the service's own. The refusal names the address to use: the
 * usual cause is a dashboard opened at another name for the same server (127.0.0.1 for localhost).
 */
export function assertOwnOrigin(request: Request, publicBaseUrl: string): void {
  const origin = request.headers.origin;
  const own = new URL(publicBaseUrl).origin;
  if (origin !== undefined && origin !== own) {
    throw new ForbiddenError(
      `This request comes from another origin than the service's own (${own}). Open the dashboard at ${publicBaseUrl}/dashboard ` +
        '(the PUBLIC_BASE_URL) and sign in there.',
    );
  }
}
