import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { BadRequestError, KeyRing, newId, newSecret, NotFoundError, pageWindow, queryRows } from '@app/core';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './dto/webhook-endpoint.dto';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { lockAccountForEndpointChange } from './delivery/endpoint-change-lock';
import { WebhookTargetGuard } from './targets/webhook-target-guard';
import { sealWebhookSecret } from './webhook-secrets';

/** Webhook endpoints of an account: their URL, subscription, state and signing secret. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(WebhookEndpointEntity) private readonly endpoints: Repository<WebhookEndpointEntity>,
    private readonly guard: WebhookTargetGuard,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly audit: AuditLog,
    private readonly keyRing: KeyRing,
  ) {}

  async create(
    accountId: string,
    input: CreateWebhookEndpointDto,
    origin: AuditOrigin,
  ): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
    await this.assertTargetAllowed(input.url);
    const secret = newSecret('whsec');
    const id = newId('we');
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(WebhookEndpointEntity, {
        id,
        accountId,
        url: input.url,
        description: input.description ?? null,
        events: input.events,
        secret: sealWebhookSecret(this.keyRing, { id, accountId }, secret),
      });
      await this.audited(manager, accountId, origin, 'webhook_endpoint.created', id, { url: input.url, events: input.events });
    });
    return { endpoint: await this.endpoints.findOneByOrFail({ id }), secret };
  }

  async list(accountId: string, page: number, pageSize: number) {
    const { limit, offset } = pageWindow(page, pageSize);
    const [items, total] = await this.endpoints.findAndCount({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { items, total };
  }

  /** Another account's endpoint is reported as missing, never as forbidden. */
  async get(accountId: string, id: string): Promise<WebhookEndpointEntity> {
    const endpoint = await this.endpoints.findOneBy({ id, accountId });
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    return endpoint;
  }

  async update(accountId: string, id: string, input: UpdateWebhookEndpointDto, origin: AuditOrigin): Promise<WebhookEndpointEntity> {
    await this.get(accountId, id);
    if (input.url !== undefined) await this.assertTargetAllowed(input.url);
    await this.dataSource.transaction(async (manager) => {
      // A pause or resume is ordered against the fan-out (docs/webhooks.md, Pausing and 410).
      if (input.active !== undefined) await lockAccountForEndpointChange(manager, accountId);
      const [before] = await queryRows<{ url: string }>(manager, `SELECT url FROM webhook_endpoints WHERE id = $1 AND account_id = $2 FOR UPDATE`, [
        id,
        accountId,
      ]);
      if (!before) throw new NotFoundError('Webhook endpoint');
      const changes: Partial<WebhookEndpointEntity> = {};
      if (input.url !== undefined) changes.url = input.url;
      if (input.events !== undefined) changes.events = input.events;
      if (input.description !== undefined) changes.description = input.description;
      if (input.active !== undefined) {
        changes.active = input.active;
        if (input.active) changes.pausedReason = null;
      }
      await manager.update(WebhookEndpointEntity, { id, accountId }, { ...changes, updatedAt: () => 'clock_timestamp()' });
      if (changes.url !== undefined && changes.url !== before.url) {
        // Hosts only: a receiver's path or query may carry its own secret, and more people read the log.
        await this.audited(manager, accountId, origin, 'webhook_endpoint.updated', id, {
          url: { fromHost: hostOf(before.url), toHost: hostOf(changes.url) },
        });
      }
      if (input.active === true) await this.deliveries.unparkInTransaction(manager, id);
      if (input.active === false) await this.deliveries.parkInTransaction(manager, id);
    });
    if (input.active === true) await this.deliveries.enqueueDue(id);
    return this.get(accountId, id);
  }

  async remove(accountId: string, id: string, origin: AuditOrigin): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // Ordered against the fan-out, which then never inserts a delivery for an endpoint deleted under it.
      await lockAccountForEndpointChange(manager, accountId);
      const rows = await queryRows<{ url: string }>(manager, `DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2 RETURNING url`, [
        id,
        accountId,
      ]);
      if (!rows.length) throw new NotFoundError('Webhook endpoint');
      await this.audited(manager, accountId, origin, 'webhook_endpoint.deleted', id, { url: rows[0].url });
    });
  }

  /** A new secret; the old one keeps signing (as a second signature) for `keepPreviousForSeconds`. */
  async rotateSecret(
    accountId: string,
    id: string,
    keepPreviousForSeconds: number,
    origin: AuditOrigin,
  ): Promise<{ endpoint: WebhookEndpointEntity; secret: string }> {
    const secret = newSecret('whsec');
    await this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
      `UPDATE webhook_endpoints
          SET previous_secret = CASE WHEN $3::int > 0 THEN secret END,
              previous_secret_expires_at = CASE WHEN $3::int > 0 THEN clock_timestamp() + make_interval(secs => $3::int) END,
              secret = $4, updated_at = clock_timestamp()
        WHERE id = $1 AND account_id = $2
      RETURNING id`,
      [id, accountId, keepPreviousForSeconds, sealWebhookSecret(this.keyRing, { id, accountId }, secret)],
      )) as [unknown[], number];
      if (!rows.length) throw new NotFoundError('Webhook endpoint');
      // Never the secrets themselves: the log is readable by more people than the secret should be.
      await this.audited(manager, accountId, origin, 'webhook_endpoint.secret_rotated', id, { keepPreviousForSeconds });
    });
    return { endpoint: await this.get(accountId, id), secret };
  }

  private audited(
    manager: EntityManager,
    accountId: string,
    origin: AuditOrigin,
    action: 'webhook_endpoint.created' | 'webhook_endpoint.updated' | 'webhook_endpoint.deleted' | 'webhook_endpoint.secret_rotated',
    endpointId: string,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record(manager, { accountId, origin, action, targetType: 'webhook_endpoint', targetId: endpointId, metadata });
  }

  private async assertTargetAllowed(url: string): Promise<void> {
    const result = await this.guard.checkAtCreation(url);
    if (result) throw new BadRequestError([{ path: 'url', message: result }]);
  }
}

/** The host (and port, if any) of an endpoint URL: what the audit log names, never userinfo, path or query. */
function hostOf(url: string): string {
  return new URL(url).host;
}
