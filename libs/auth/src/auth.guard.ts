import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig, ForbiddenError, RateLimitedError, UnauthorizedError } from '@app/core';
import { CredentialResolverRegistry } from './credential-resolver';
import type { Principal } from './principal';
import { RateLimiter, RateLimitState } from './rate-limiter.service';
import { REQUIRED_SCOPE } from './auth-metadata';
import type { Scope } from './scopes';

/** DECISIONS §10: failed authentication is limited per client address. */
export const AUTH_FAILURES_PER_MINUTE = 60;

declare module 'express' {
  interface Request {
    principal?: Principal;
  }
}

/**
 * Authenticates the bearer credential, counts the request against the credential's rate limit and
 * checks the route's scope, in that order: a request with a valid key but the wrong scope still
 * counts, and an address that keeps failing is refused before any lookup is made.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly resolvers: CredentialResolverRegistry,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const required = this.reflector.get<Scope>(REQUIRED_SCOPE, context.getHandler());

    const principal = await this.authenticate(request);
    const usage = await this.limiter.hit('credential', principal.credentialId, this.config.rateLimitPerMinute);
    setRateLimitHeaders(response, usage);
    if (!usage.allowed) throw new RateLimitedError(usage.resetSeconds);

    if (!principal.scopes.has(required)) {
      throw new ForbiddenError(`This credential lacks the scope ${required} that this endpoint requires.`);
    }
    request.principal = principal;
    return true;
  }

  private async authenticate(request: Request): Promise<Principal> {
    const address = request.ip ?? 'unknown';
    const failures = await this.limiter.peek('auth-failures', address, AUTH_FAILURES_PER_MINUTE);
    if (!failures.allowed) {
      throw new RateLimitedError(failures.resetSeconds, 'Too many failed authentication attempts; retry later.');
    }
    const credential = bearerCredential(request);
    const principal = credential ? await this.resolvers.resolve(credential) : null;
    if (principal) return principal;
    await this.limiter.hit('auth-failures', address, AUTH_FAILURES_PER_MINUTE);
    throw new UnauthorizedError(
      credential
        ? 'The credential is invalid or has been revoked.'
        : 'Missing credential: send `Authorization: Bearer <API key>`.',
    );
  }
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
