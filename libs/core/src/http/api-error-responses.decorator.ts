import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request; `issues` names each invalid field.',
  401: 'Missing, invalid or revoked credential.',
  402: 'The wallet balance is too low.',
  403: 'The credential lacks the required scope.',
  404: 'No such resource, or it belongs to another account.',
  422: 'Well formed, but cannot be fulfilled.',
  429: 'Rate limited; see `Retry-After`.',
  502: 'An upstream provider could not be reached; nothing was changed. Retry with backoff.',
  503: 'Briefly busy; nothing was changed. Retry after `Retry-After`.',
};

/** Documents the error responses a route can give, all in the ErrorResponse shape. */
export function ApiErrorResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto })),
  );
}
