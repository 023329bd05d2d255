import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig, RateLimitedError, UnauthorizedError } from '@app/core';
import { AUTH_FAILURES_BUCKET, AUTH_FAILURES_PER_MINUTE, setRateLimitHeaders } from './auth.guard';
import { clientAddress } from './client-address';
import { RateLimiter } from './rate-limiter.service';
import { assertSameSiteRequest, dashboardSessionCookie, SessionCookie } from './session-cookie';
import { Session, SESSION_LIFETIMES, SessionStore } from './session-store';

declare module 'express' {
  interface Request {
    signedIn?: Session;
  }
}

/**
 * For the dashboard routes about the session itself and the person's own security, which need a
 * signed-in person but no account (a member removed from every account can still sign out or change
 * their password). Same checks as the AuthGuard gives a cookie: no bearer credential, rate limit
 * per session, CSRF and Origin on changes. The session is read fresh on every request.
 */
@Injectable()
export class SignedInGuard implements CanActivate {
  readonly cookie: SessionCookie;

  constructor(
    private readonly sessions: SessionStore,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.cookie = dashboardSessionCookie(config.publicBaseUrl, SESSION_LIFETIMES.dashboard.absoluteSeconds);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    if (request.headers.authorization) {
      throw new UnauthorizedError('This endpoint takes a dashboard session, not an API key or OAuth token.');
    }
    const address = clientAddress(request);
    const failures = await this.limiter.peek(AUTH_FAILURES_BUCKET, address, AUTH_FAILURES_PER_MINUTE);
    if (!failures.allowed) throw new RateLimitedError(failures.resetSeconds, 'Too many failed authentication attempts; retry later.');
    const session = await this.sessions.find('dashboard', this.cookie.valueFrom(request.headers.cookie));
    if (!session?.userId) {
      await this.limiter.hit(AUTH_FAILURES_BUCKET, address, AUTH_FAILURES_PER_MINUTE);
      throw new UnauthorizedError('Not signed in, or the session has ended.');
    }
    const usage = await this.limiter.hit('credential', session.id, this.config.rateLimitPerMinute);
    setRateLimitHeaders(response, usage);
    if (!usage.allowed) throw new RateLimitedError(usage.resetSeconds);
    assertSameSiteRequest(request, session.csrfToken, this.config.publicBaseUrl);
    request.signedIn = session;
    return true;
  }
}

/** The signed-in session of a @SignedIn route (its user is set). */
export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext): Session & { userId: string } => {
  const session = context.switchToHttp().getRequest<Request>().signedIn;
  if (!session?.userId) throw new Error('CurrentSession used on a route without @SignedIn');
  return session as Session & { userId: string };
});
