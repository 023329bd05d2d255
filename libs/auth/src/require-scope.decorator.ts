import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiExtension } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { AuthGuard } from './auth.guard';
import { DASHBOARD_ONLY, PUBLIC_ROUTE, REQUIRED_SCOPE, SIGNED_IN_ROUTE } from './auth-metadata';
import { SignedInGuard } from './signed-in.guard';
import type { Scope } from './scopes';

/**
 * The one decorator an authenticated route carries: it declares the scope, applies the guard
 * (authentication, rate limit, scope check) and documents the security requirement and the
 * 401/403/429 answers in OpenAPI.
 */
export function RequireScope(scope: Scope): MethodDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    UseGuards(AuthGuard),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-scope', scope),
    ApiErrorResponses(401, 403, 429),
  );
}

/**
 * A route whose scope depends on what is asked (a report of rewards or of wallet transactions): the
 * guard lets in a credential holding any of `scopes`, and the handler checks the one the request
 * needs (docs/auth.md, Scopes). OpenAPI lists each as an alternative.
 */
export function RequireAnyScope(...scopes: [Scope, Scope, ...Scope[]]): MethodDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scopes),
    UseGuards(AuthGuard),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-scope', scopes),
    ApiErrorResponses(401, 403, 429),
  );
}

/**
 * A dashboard-only route acting on the session's current account: the role there must grant
 * `scope`. An API key or OAuth token gets 401, whatever its scopes.
 */
export function RequireDashboardScope(scope: Scope): MethodDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    SetMetadata(DASHBOARD_ONLY, true),
    UseGuards(AuthGuard),
    ApiCookieAuth('session'),
    ApiExtension('x-required-scope', scope),
    ApiErrorResponses(401, 403, 429),
  );
}

/** A dashboard route that needs a signed-in person, not an account (see SignedInGuard). */
export function SignedIn(): MethodDecorator {
  return applyDecorators(
    SetMetadata(SIGNED_IN_ROUTE, true),
    UseGuards(SignedInGuard),
    ApiCookieAuth('session'),
    ApiErrorResponses(401, 403, 429),
  );
}

/** Marks a route that takes no credential (health, redemption page, OAuth endpoints). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_ROUTE, true);
}
