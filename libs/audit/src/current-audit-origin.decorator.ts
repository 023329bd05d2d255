import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AuditOrigin, auditActorOf } from './audit-actor';

/** The actor and client address of a @RequireScope route, for services that audit the change. */
export const CurrentAuditOrigin = createParamDecorator((_: unknown, context: ExecutionContext): AuditOrigin => {
  const request = context.switchToHttp().getRequest<Request>();
  if (!request.principal) throw new Error('CurrentAuditOrigin used on a route without @RequireScope');
  return { actor: auditActorOf(request.principal), ipAddress: request.ip ?? null };
});
