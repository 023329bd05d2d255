import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CreatedQuery, EVENT_TYPES, RequestExamples } from '@app/core';

/** How far back the events API and replays reach (docs/webhooks.md, Events API). */
export const EVENT_RETENTION_DAYS = 30;

export class EventDto {
  /** Event identifier (`evt_`): the `id` of its webhook deliveries, the same on every replay. */
  @ApiProperty({ pattern: '^evt_', example: 'evt_4uVYk2MZ1pX9bq3Tn7cLrD' })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'wallet.credited' })
  type: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  /** The event's payload, as its webhook deliveries carry it (docs/webhooks.md, Events). */
  @ApiProperty({ type: 'object', additionalProperties: true, example: { topupId: 'tu_7bqC0Ew1X8a3R2mFhD9kZt', amountCents: 50000, currency: 'USD' } })
  data: Record<string, unknown>;
}

export class EventResponseDto {
  event: EventDto;
}

export class EventListDto {
  events: EventDto[];
  /** Whether older events follow (ask again with `starting_after` set to the last id of this page). */
  hasMore: boolean;
}

export class EventsQueryDto {
  @ApiPropertyOptional({ enum: EVENT_TYPES, example: 'reward.redeemed', description: 'Only events of this type.' })
  @IsOptional()
  @IsIn(EVENT_TYPES)
  type?: string;

  @CreatedQuery('gte', '2026-11-01T00:00:00Z')
  created_gte?: string;

  @CreatedQuery('lt', '2026-11-15T00:00:00Z')
  created_lt?: string;

  /** The page of events older than this one (the last id of the page seen). */
  @ApiPropertyOptional({ maxLength: 100, pattern: '^evt_' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  starting_after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Events per page, 1 to 100.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 25;
}

export class ReplayEventsDto {
  /** The first instant of the range (ISO 8601); at most 30 days ago. Default: 30 days ago. */
  @ApiPropertyOptional({ type: String, format: 'date-time', maxLength: 40, example: '2026-11-20T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'createdGte must be an ISO 8601 timestamp' })
  @MaxLength(40)
  createdGte?: string;

  /** The end of the range, excluded (ISO 8601). Default: now. */
  @ApiPropertyOptional({ type: String, format: 'date-time', maxLength: 40, example: '2026-11-21T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'createdLt must be an ISO 8601 timestamp' })
  @MaxLength(40)
  createdLt?: string;
}

export const REPLAY_EVENTS_EXAMPLES: RequestExamples<ReplayEventsDto> = {
  day: { summary: 'The events of one day, again', value: { createdGte: '2026-11-20T00:00:00Z', createdLt: '2026-11-21T00:00:00Z' } },
};

export class ReplayDto {
  /** Replay identifier (`wrp_`). */
  @ApiProperty({ pattern: '^wrp_' })
  id: string;

  /** How many events of the range the endpoint subscribes to: each is delivered again, paced (docs/webhooks.md, Replay). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  eventCount: number;

  @ApiProperty({ type: String, format: 'date-time' })
  createdGte: string;

  @ApiProperty({ type: String, format: 'date-time' })
  createdLt: string;
}

export class ReplayResponseDto {
  replay: ReplayDto;
}
