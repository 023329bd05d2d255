import type { Request } from 'express';

/**
 * The address per-address limits count against. Express derives it from the socket, or from
 * X-Forwarded-For as far as the `trust proxy` setting (TRUST_PROXY) allows, so behind a load
 * balancer each client keeps its own budget. See docs/operations.md.
 */
export function clientAddress(request: Request): string {
  return request.ip ?? request.socket?.remoteAddress ?? 'unknown';
}
