import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { EVENT_TYPES, NoControlCharacters, PageQueryDto, PageSizeQuery, RequestExamples } from '@app/core';
import { WebhookEndpointEntity } from '../entities/webhook-endpoint.entity';

export const MAX_ROTATION_GRACE_SECONDS = 86_400;

/**
 * For the contract: an http(s) URL whose authority holds no `@`, i.e. no `user:pass@` (the target guard
 * refuses credentials, libs/webhooks/src/targets/webhook-target-guard.ts).
 */
const URL_WITHOUT_CREDENTIALS = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+(?:[/?#].*)?$';

export class CreateWebhookEndpointDto {
  /**
   * Where events are POSTed. `https` only (plain `http` only where the operator allows private targets); it may not
   * resolve to a loopback, private, link-local or metadata address, and may not carry credentials (`user:pass@`): 400.
   */
  @IsString()
  @MaxLength(2048)
  @NoControlCharacters()
  @ApiProperty({ format: 'uri', maxLength: 2048, pattern: URL_WITHOUT_CREDENTIALS })
  url: string;

  /** Event names to receive; an empty array subscribes to every event. */
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(EVENT_TYPES.length)
  @IsIn(EVENT_TYPES, { each: true, message: `each value in events must be one of: ${EVENT_TYPES.join(', ')}` })
  @ApiProperty({ type: [String], enum: EVENT_TYPES })
  events: string[];

  /** A note for your own reference. */
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @MaxLength(500)
  @NoControlCharacters({ allowLineBreaks: true })
  description?: string;
}

export class UpdateWebhookEndpointDto {
  // Absent means unchanged; null is refused (ValidateIf, unlike IsOptional, still validates null).
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @MaxLength(2048)
  @NoControlCharacters()
  @ApiProperty({
    format: 'uri',
    maxLength: 2048,
    pattern: URL_WITHOUT_CREDENTIALS,
    required: false,
    description: 'As at creation: https, a public address, no credentials (`user:pass@`).',
  })
  url?: string;

  /** Replaces the subscription; an empty array subscribes to every event. */
  @ValidateIf((_, value) => value !== undefined)
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(EVENT_TYPES.length)
  @IsIn(EVENT_TYPES, { each: true, message: `each value in events must be one of: ${EVENT_TYPES.join(', ')}` })
  @ApiProperty({ type: [String], enum: EVENT_TYPES, required: false })
  events?: string[];

  /** A note for your own reference; null clears it. */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @NoControlCharacters({ allowLineBreaks: true })
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 500 })
  description?: string | null;

  /** `false` pauses the endpoint: it receives nothing, and deliveries already pending wait. `true` resumes them. */
  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean()
  active?: boolean;
}

export class RotateWebhookSecretDto {
  /**
   * How long the old secret stays valid, 0 to 86400 seconds (24 h); default 0 (it stops at once).
   * Meanwhile each delivery carries both signatures, `v1=<new> v1=<old>`, so receivers can switch over without dropping events.
   */
  @ValidateIf((_, value) => value !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_ROTATION_GRACE_SECONDS)
  // maximum and format spelt out: the tests' read-only OpenAPI metadata cannot evaluate the constant in @Max (test/support/swagger-metadata.ts).
  @ApiProperty({ type: 'integer', format: 'int32', maximum: MAX_ROTATION_GRACE_SECONDS, required: false })
  keepPreviousForSeconds?: number;
}

/*
 * Request examples (docs/api-contract.md, Examples). `example.com` stands for your receiver's public
 * https host; docs/webhooks.md shows how to verify what it receives.
 */
export const CREATE_WEBHOOK_ENDPOINT_EXAMPLES: RequestExamples<CreateWebhookEndpointDto> = {
  some: {
    summary: 'Reward and card events for the order system',
    value: {
      url: 'https://example.com/webhooks/rewards',
      events: ['reward.created', 'reward.redeemed', 'reward.canceled', 'card.issued', 'card.failed'],
      description: 'Order system',
    },
  },
  all: { summary: 'Every event (an empty list)', value: { url: 'https://example.com/webhooks/all', events: [] } },
};

export const UPDATE_WEBHOOK_ENDPOINT_EXAMPLES: RequestExamples<UpdateWebhookEndpointDto> = {
  events: { summary: 'Change the subscription and the note', value: { events: ['reward.redeemed', 'wallet.credited'], description: 'Finance' } },
  pause: { summary: 'Pause: events wait as parked deliveries', value: { active: false } },
  resume: { summary: 'Resume: parked deliveries are sent', value: { active: true } },
};

export const ROTATE_WEBHOOK_SECRET_EXAMPLES: RequestExamples<RotateWebhookSecretDto> = {
  grace: { summary: 'New secret; the old one keeps signing for an hour', value: { keepPreviousForSeconds: 3600 } },
};

export class WebhookEndpointDto {
  /** Endpoint identifier (`we_`). */
  id: string;

  @ApiProperty({ format: 'uri' })
  url: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  /** Subscribed event names; empty means every event. */
  @ApiProperty({ type: [String], enum: EVENT_TYPES })
  events: string[];

  /** False while paused: it receives nothing until reactivated, and is not deleted. */
  active: boolean;

  /** Set when the service paused the endpoint itself (its receiver answered 410 Gone); null otherwise. */
  @ApiProperty({ type: String, nullable: true })
  pausedReason: string | null;

  /** Until when the previous secret still signs deliveries after a rotation; null when only the current one does. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  previousSecretExpiresAt: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: string;
}

export class WebhookEndpointResponseDto {
  webhookEndpoint: WebhookEndpointDto;
}

export class WebhookEndpointWithSecretDto {
  webhookEndpoint: WebhookEndpointDto;

  /** The signing secret (`whsec_`). Shown only in this response: store it now. */
  @ApiProperty({ pattern: '^whsec_' })
  secret: string;
}

export class WebhookEndpointListDto {
  webhookEndpoints: WebhookEndpointDto[];
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
}

export class WebhookEndpointsQueryDto extends PageQueryDto {
  @PageSizeQuery(25)
  page_size: number = 25;
}

export function toWebhookEndpointDto(endpoint: WebhookEndpointEntity): WebhookEndpointDto {
  // The wall clock, not the injected Clock: the grace is set and ended by the database's clock_timestamp(),
  // which decides whether deliveries are still signed with the previous secret too.
  const graceActive = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > Date.now();
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    active: endpoint.active,
    pausedReason: endpoint.pausedReason,
    previousSecretExpiresAt: graceActive ? endpoint.previousSecretExpiresAt!.toISOString() : null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}
