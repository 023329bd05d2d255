import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { entityFromRow, newId, NotFoundError, pageWindow, ValidationError } from '@app/core';
import { DeliveryScheduler } from './delivery/delivery-scheduler';
import { WebhookDeliveryAttemptEntity } from './entities/webhook-delivery-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';

/** The merchant's side of deliveries: listing them, a test ping, a manual retry. */
@Injectable()
export class WebhookDeliveriesService {
  /** A delivery as a statement's RETURNING gives it, mapped as TypeORM reads the row. */
  private readonly asDelivery: (row: Record<string, unknown>) => WebhookDeliveryEntity;

  constructor(
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookEndpointEntity) private readonly endpoints: Repository<WebhookEndpointEntity>,
    @InjectRepository(WebhookDeliveryAttemptEntity) private readonly attempts: Repository<WebhookDeliveryAttemptEntity>,
    private readonly scheduler: DeliveryScheduler,
  ) {
    this.asDelivery = entityFromRow<WebhookDeliveryEntity>(deliveries.metadata);
  }

  /** Newest first (by creation order, which timestamps alone cannot break ties in). */
  async list(accountId: string, endpointId: string, page: number, pageSize: number) {
    await this.endpoint(accountId, endpointId);
    const { limit, offset } = pageWindow(page, pageSize);
    const query = this.deliveries
      .createQueryBuilder('d')
      .where('d.endpoint_id = :endpointId AND d.account_id = :accountId', { endpointId, accountId });
    const [items, total] = await Promise.all([query.clone().orderBy('d.seq', 'DESC').limit(limit).offset(offset).getMany(), query.getCount()]);
    return { items, total };
  }

  /** One delivery with every attempt, oldest first. */
  async get(accountId: string, endpointId: string, deliveryId: string) {
    await this.endpoint(accountId, endpointId);
    const delivery = await this.deliveries.findOneBy({ id: deliveryId, endpointId, accountId });
    if (!delivery) throw new NotFoundError('Webhook delivery');
    const attempts = await this.attempts.find({ where: { deliveryId }, order: { attempt: 'ASC' } });
    const success = keptSuccess(delivery);
    if (success && !attempts.some((a) => a.attempt === success.attempt)) attempts.push(success);
    return { delivery, attempts };
  }

  /** Queues a signed `ping` to this endpoint only; it goes through the same path as real events. */
  async ping(accountId: string, endpointId: string): Promise<WebhookDeliveryEntity> {
    const endpoint = await this.endpoint(accountId, endpointId);
    if (!endpoint.active) throw new ValidationError('The endpoint is paused; reactivate it (PATCH active: true) before sending a test event.');
    const eventId = newId('evt');
    const id = newId('whd');
    const payload = { id: eventId, type: 'ping', createdAt: new Date().toISOString(), data: { webhookEndpointId: endpoint.id } };
    // The answer is the delivery as queued: read back after the enqueue, it could already show the
    // worker's first attempt (or its outcome), depending on who was faster.
    const [row] = (await this.deliveries.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, next_attempt_at)
       VALUES ($1, $2, $3, $4, 'ping', $5::json, clock_timestamp())
       RETURNING *`,
      [id, endpoint.id, accountId, eventId, JSON.stringify(payload)],
    )) as Record<string, unknown>[];
    await this.scheduler.enqueue(endpoint.id, id, 1);
    return this.asDelivery(row);
  }

  /**
   * Sends a finished delivery again, same event id and body, for a receiver that has been fixed.
   * A pending delivery is already scheduled (or waiting for its paused endpoint), so it is refused.
   */
  async retry(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryEntity> {
    const endpoint = await this.endpoint(accountId, endpointId);
    const delivery = await this.deliveries.findOneBy({ id: deliveryId, endpointId, accountId });
    if (!delivery) throw new NotFoundError('Webhook delivery');
    if (!endpoint.active) throw new ValidationError('The endpoint is paused; reactivate it (PATCH active: true) before retrying.');
    const [rows] = (await this.deliveries.query(
      // A success kept on the delivery row becomes an attempt row before the row moves on to the next attempt.
      `WITH kept AS (
         INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error)
         SELECT id, attempts, last_attempt_at, last_attempt_duration_ms, true, response_status, NULL FROM webhook_deliveries
          WHERE id = $1 AND status = 'SUCCEEDED' AND last_attempt_duration_ms IS NOT NULL
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = clock_timestamp(), last_attempt_duration_ms = NULL
        WHERE id = $1 AND status IN ('FAILED', 'SUCCEEDED') RETURNING *`,
      [deliveryId],
    )) as [Record<string, unknown>[], number];
    if (!rows.length) throw new ValidationError('The delivery is still pending: its next attempt is already scheduled.');
    const queued = this.asDelivery(rows[0]);
    await this.scheduler.enqueue(endpointId, deliveryId, queued.attempts + 1);
    return queued; // as the retry left it, as `ping` answers
  }

  /** Deliveries parked while the endpoint was paused become due again, in the reactivating transaction. */
  async unparkInTransaction(manager: EntityManager, endpointId: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp()
        WHERE endpoint_id = $1 AND status = 'PENDING' AND next_attempt_at IS NULL`,
      [endpointId],
    );
  }

  /**
   * The endpoint is being paused: its due deliveries that no attempt holds are parked with it, in the
   * pausing transaction, so each waiting delivery reads as parked (no next attempt). Nothing depends on
   * it: workers claim nothing for a paused endpoint, and a resume sends whatever is due.
   */
  async parkInTransaction(manager: EntityManager, endpointId: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_deliveries SET next_attempt_at = NULL
        WHERE endpoint_id = $1 AND status = 'PENDING' AND next_attempt_at <= clock_timestamp() AND leased_until IS NULL`,
      [endpointId],
    );
  }

  /** Has a worker send the endpoint's due deliveries now (in batches) rather than waiting for the sweep. */
  async enqueueDue(endpointId: string): Promise<void> {
    await this.scheduler.enqueueEndpoint(endpointId);
  }

  private async endpoint(accountId: string, endpointId: string): Promise<WebhookEndpointEntity> {
    const endpoint = await this.endpoints.findOneBy({ id: endpointId, accountId });
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    return endpoint;
  }
}

/**
 * The attempt that succeeded, as kept on its delivery row (a success gets no attempt row of its own;
 * docs/webhooks.md, Attempts); null when the delivery has not succeeded, or succeeded before that rule.
 */
function keptSuccess(delivery: WebhookDeliveryEntity): WebhookDeliveryAttemptEntity | null {
  if (delivery.status !== 'SUCCEEDED' || delivery.lastAttemptDurationMs === null || !delivery.lastAttemptAt) return null;
  return Object.assign(new WebhookDeliveryAttemptEntity(), {
    deliveryId: delivery.id,
    attempt: delivery.attempts,
    startedAt: delivery.lastAttemptAt,
    durationMs: delivery.lastAttemptDurationMs,
    succeeded: true,
    responseStatus: delivery.responseStatus,
    error: null,
  });
}
