import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { AuthGuard } from './auth.guard';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './auth-metadata';
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

/** Marks a route that takes no credential (health, redemption page, OAuth endpoints). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_ROUTE, true);
}
