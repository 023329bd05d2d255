import type { NextFunction, Request, Response } from 'express';
import { httpRequestDuration } from './metrics';

/**
 * Times every request and labels it with the route template Express matched (`/v1/rewards/:id`),
 * never the raw path: ids and redemption tokens would make a series per request.
 */
export function httpMetrics(request: Request, response: Response, next: NextFunction): void {
  const stop = httpRequestDuration.startTimer();
  response.once('finish', () => {
    const template = request.route?.path as string | undefined;
    const route = template ? `${request.baseUrl}${template}` : 'unmatched';
    stop({ method: request.method, route, status: String(response.statusCode) });
  });
  next();
}
