import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldIssueDto {
  /** Dotted path of the offending field (`recipient.email`), or `body` for the body as a whole. */
  path: string;

  /** What is wrong with it. */
  message: string;
}

/** Every error the API returns has this shape. */
export class ErrorResponseDto {
  @ApiProperty({
    enum: ['bad_request', 'unauthorized', 'insufficient_funds', 'forbidden', 'not_found', 'validation', 'rate_limited', 'internal'],
    description: 'Machine-readable error code.',
  })
  error: string;

  /** Human-readable explanation. */
  message: string;

  /** Present on 400: one entry per invalid field. */
  @ApiPropertyOptional({ type: [FieldIssueDto] })
  issues?: FieldIssueDto[];

  /** Present on 500: quote it when contacting support. */
  requestId?: string;
}
