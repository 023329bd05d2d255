import { ApiProperty } from '@nestjs/swagger';
import { PageQueryDto, PageSizeQuery } from '@app/core';
import { WebhookDeliveryAttemptEntity } from '../entities/webhook-delivery-attempt.entity';
import { DELIVERY_STATUSES, WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';

export class WebhookDeliveryDto {
  /** Delivery identifier (`whd_`). */
  id: string;

  /** The event's id (`evt_`), the same on every attempt and in the `X-Webhook-Id` header. */
  eventId: string;

  /** The event kind, or `ping` for a test delivery. */
  eventType: string;

  /** PENDING while attempts remain (or while the endpoint is paused), SUCCEEDED on a 2xx, FAILED once attempts are exhausted. */
  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: string;

  /** Attempts made so far. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts: number;

  /** The HTTP status the receiver answered at the last attempt; null if none answered (timeout, refused, TLS error). */
  @ApiProperty({ type: 'integer', nullable: true })
  responseStatus: number | null;

  /** Why the last attempt failed, briefly; null after a success or before any attempt. */
  @ApiProperty({ type: String, nullable: true })
  lastError: string | null;

  /** The exact JSON body that is signed and POSTed: `{id, type, createdAt, data}`. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  payload: Record<string, unknown>;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastAttemptAt: string | null;

  /** When the next attempt is due; null when none is scheduled (finished, or waiting for a paused endpoint). */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  nextAttemptAt: string | null;
}

export class WebhookDeliveryResponseDto {
  delivery: WebhookDeliveryDto;
}

export class WebhookDeliveryListDto {
  deliveries: WebhookDeliveryDto[];
  @ApiProperty({ type: 'integer', minimum: 0 })
  total: number;
}

export class WebhookDeliveriesQueryDto extends PageQueryDto {
  @PageSizeQuery(25)
  page_size: number = 25;
}

export function toWebhookDeliveryDto(delivery: WebhookDeliveryEntity): WebhookDeliveryDto {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    responseStatus: delivery.responseStatus,
    lastError: delivery.lastError,
    payload: delivery.payload,
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: delivery.lastAttemptAt ? delivery.lastAttemptAt.toISOString() : null,
    nextAttemptAt: delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
  };
}

export class WebhookDeliveryAttemptDto {
  /** 1 for the first attempt. */
  @ApiProperty({ type: 'integer', minimum: 1 })
  attempt: number;

  @ApiProperty({ type: String, format: 'date-time' })
  startedAt: string;

  /** From the start of the attempt to the receiver's full answer (or the failure). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  durationMs: number;

  succeeded: boolean;

  /** The receiver's HTTP status; null when none answered. */
  @ApiProperty({ type: 'integer', nullable: true })
  responseStatus: number | null;

  /** Why the attempt failed, briefly (timeout, connection refused, TLS, a refused target, a non-2xx status); null on success. */
  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class WebhookDeliveryDetailDto {
  delivery: WebhookDeliveryDto;
  /** Every attempt, oldest first. */
  attempts: WebhookDeliveryAttemptDto[];
}

export function toWebhookDeliveryAttemptDto(attempt: WebhookDeliveryAttemptEntity): WebhookDeliveryAttemptDto {
  return {
    attempt: attempt.attempt,
    startedAt: attempt.startedAt.toISOString(),
    durationMs: attempt.durationMs,
    succeeded: attempt.succeeded,
    responseStatus: attempt.responseStatus,
    error: attempt.error,
  };
}
