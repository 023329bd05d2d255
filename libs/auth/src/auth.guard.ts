import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig, ForbiddenError, InsufficientScopeError, RateLimitedError, UnauthorizedError } from '@app/core';
import { CredentialResolverRegistry, CredentialTransport } from './credential-resolver';
import type { Principal } from './principal';
import { RateLimiter, RateLimitState } from './rate-limiter.service';
import { DASHBOARD_ONLY, REQUIRED_SCOPE } from './auth-metadata';
import { clientAddress } from './client-address';
import { assertSameSiteRequest, dashboardSessionCookie, SessionCookie } from './session-cookie';
import { SESSION_LIFETIMES } from './session-store';
import type { Scope } from './scopes';

/** Failed authentication is limited per client address (docs/auth.md, Rate limits). */
export const AUTH_FAILURES_PER_MINUTE = 60;
/** The rate-limit bucket failed authentications count in, here and at the OAuth token endpoints. */
export const AUTH_FAILURES_BUCKET = 'auth-failures';

declare module 'express' {
  interface Request {
    principal?: Principal;
  }
}

/**
 * Authenticates the credential (a bearer header, or else the dashboard's session cookie), counts
 * the request against the credential's rate limit and checks the route's scope, in that order: a
 * request with a valid key but the wrong scope still counts, and an address that keeps failing is
 * refused before any lookup is made. A request authenticated by the cookie that changes something
 * must also pass the CSRF and Origin checks (session-cookie.ts).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly sessionCookie: SessionCookie;

  constructor(
    private readonly reflector: Reflector,
    private readonly resolvers: CredentialResolverRegistry,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.sessionCookie = dashboardSessionCookie(config.publicBaseUrl, SESSION_LIFETIMES.dashboard.absoluteSeconds);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    // One scope, or any of several (RequireAnyScope: the handler checks the one the request needs).
    const required = this.reflector.get<Scope | Scope[]>(REQUIRED_SCOPE, context.getHandler());
    const anyOf: Scope[] = Array.isArray(required) ? required : [required];
    // API keys and OAuth tokens are not dashboard credentials: a leaked one must not manage keys or people.
    if (this.reflector.get<boolean>(DASHBOARD_ONLY, context.getHandler()) && request.headers.authorization) {
      throw new UnauthorizedError('This endpoint takes a dashboard session, not an API key or OAuth token.');
    }

    const { principal, usage } = await this.authenticate(request);
    setRateLimitHeaders(response, usage);
    if (!usage.allowed) throw new RateLimitedError(usage.resetSeconds);
    if (principal.credentialKind === 'session') {
      assertSameSiteRequest(request, principal.csrfToken ?? '', this.config.publicBaseUrl);
    }

    if (!anyOf.some((scope) => principal.scopes.has(scope))) {
      const message = `This credential lacks the scope ${anyOf.join(' or ')} that this endpoint requires.`;
      // RFC 6750 §3.1: a bearer credential (API key or OAuth token) is told which scope it needs.
      throw principal.credentialKind === 'session' ? new ForbiddenError(message) : new InsufficientScopeError(anyOf.join(' '), message);
    }
    request.principal = principal;
    return true;
  }

  /** The principal and its rate-limit usage, this request counted. */
  private async authenticate(request: Request): Promise<{ principal: Principal; usage: RateLimitState }> {
    const address = clientAddress(request);
    const failuresLimit = { bucket: AUTH_FAILURES_BUCKET, subject: address, limit: AUTH_FAILURES_PER_MINUTE };
    const credential = bearerCredential(request);
    // The cookie counts only when no Authorization header is sent: an explicit credential wins.
    const cookie = request.headers.authorization ? undefined : this.sessionCookie.valueFrom(request.headers.cookie);
    const presented: { value: string; transport: CredentialTransport } | null = credential
      ? { value: credential, transport: 'bearer' }
      : cookie
        ? { value: cookie, transport: 'cookie' }
        : null;

    // A credential resolved moments ago: the address check and the count in one Redis round trip (nothing counted for a blocked address).
    const known = presented ? this.resolvers.cached(presented.value, presented.transport) : null;
    if (known) {
      const { blocked, usage } = await this.limiter.hitUnlessBlocked(
        failuresLimit,
        'credential',
        known.credentialId,
        this.config.rateLimitPerMinute,
      );
      if (blocked) throw tooManyFailures(blocked);
      return { principal: known, usage: usage! };
    }

    const failures = await this.limiter.peek(failuresLimit.bucket, address, AUTH_FAILURES_PER_MINUTE);
    if (!failures.allowed) throw tooManyFailures(failures);
    const principal = presented ? await this.resolvers.resolve(presented.value, presented.transport) : null;
    if (principal) {
      const usage = await this.limiter.hit('credential', principal.credentialId, this.config.rateLimitPerMinute);
      return { principal, usage };
    }
    await this.limiter.hit(failuresLimit.bucket, address, AUTH_FAILURES_PER_MINUTE);
    // RFC 6750 §3: the challenge names the scheme, and says invalid_token when a token was presented.
    throw new UnauthorizedError(
      presented
        ? 'The credential is invalid or has been revoked.'
        : 'Missing credential: send `Authorization: Bearer <API key>`.',
      { 'WWW-Authenticate': presented ? 'Bearer error="invalid_token"' : 'Bearer' },
    );
  }
}

function tooManyFailures(state: RateLimitState): RateLimitedError {
  return new RateLimitedError(state.resetSeconds, 'Too many failed authentication attempts; retry later.');
}

function bearerCredential(request: Request): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

export function setRateLimitHeaders(response: Response, usage: RateLimitState): void {
  response.setHeader('RateLimit-Limit', String(usage.limit));
  response.setHeader('RateLimit-Remaining', String(usage.remaining));
  response.setHeader('RateLimit-Reset', String(usage.resetSeconds));
}
