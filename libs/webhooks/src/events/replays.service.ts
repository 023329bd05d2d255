import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { BadRequestError, Clock, MAX_RANGE_DAYS, newId, NotFoundError, queryRows, ValidationError } from '@app/core';
import { EVENT_RETENTION_DAYS, ReplayDto } from './event.dto';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Replays (docs/webhooks.md, Replay): the API side checks the range and the endpoint, counts the
 * events the endpoint subscribes to, and records the request with its audit entry. The worker's
 * ReplayPump turns it into deliveries at a bounded pace.
 */
@Injectable()
export class ReplaysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async request(accountId: string, endpointId: string, input: { createdGte?: string; createdLt?: string }, origin: AuditOrigin): Promise<ReplayDto> {
    const now = this.clock.now();
    const oldest = new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS);
    const lt = input.createdLt !== undefined ? new Date(input.createdLt) : now;
    // Without a start, the whole of what is kept: the last 30 days before the end.
    const gte = input.createdGte !== undefined ? new Date(input.createdGte) : new Date(Math.max(oldest.getTime(), lt.getTime() - EVENT_RETENTION_DAYS * DAY_MS));

    return this.dataSource.transaction(async (manager) => {
      const [endpoint] = await queryRows<{ id: string; events: string[]; active: boolean }>(
        manager,
        `SELECT id, events, active FROM webhook_endpoints WHERE id = $1 AND account_id = $2 FOR SHARE`,
        [endpointId, accountId],
      );
      if (!endpoint) throw new NotFoundError('Webhook endpoint');
      if (gte.getTime() >= lt.getTime()) throw new BadRequestError([{ path: 'createdGte', message: 'must be before createdLt' }]);
      if (lt.getTime() - gte.getTime() > MAX_RANGE_DAYS * DAY_MS) {
        throw new BadRequestError([{ path: 'createdGte', message: `must be at most ${MAX_RANGE_DAYS} days before createdLt` }]);
      }
      if (gte.getTime() < oldest.getTime()) {
        throw new BadRequestError([{ path: 'createdGte', message: `must be within the last ${EVENT_RETENTION_DAYS} days (events are kept that long)` }]);
      }
      if (!endpoint.active) throw new ValidationError('The endpoint is paused; reactivate it (PATCH active: true) before replaying events to it.');

      const [{ count }] = await queryRows<{ count: number }>(
        manager,
        `SELECT count(*)::int AS count FROM events
          WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND (cardinality($4::text[]) = 0 OR type = ANY($4::text[]))`,
        [accountId, gte, lt, endpoint.events],
      );
      const id = newId('wrp');
      await manager.query(
        `INSERT INTO webhook_replays (id, account_id, endpoint_id, created_gte, created_lt, event_types, event_count, next_batch_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, CASE WHEN $7 = 0 THEN clock_timestamp() END)`,
        [id, accountId, endpointId, gte, lt, endpoint.events, count, now],
      );
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'webhook_endpoint.replay_requested',
        targetType: 'webhook_endpoint',
        targetId: endpointId,
        metadata: { replayId: id, createdGte: gte.toISOString(), createdLt: lt.toISOString(), eventCount: count },
      });
      return { id, eventCount: count, createdGte: gte.toISOString(), createdLt: lt.toISOString() };
    });
  }
}
