import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { BadRequestError, Clock, dateRange, NotFoundError, queryRows, ReadRouting } from '@app/core';
import { EVENT_RETENTION_DAYS, EventDto } from './event.dto';

const DAY_MS = 24 * 60 * 60 * 1000;

interface EventRow {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface EventQuery {
  type?: string;
  createdGte?: string;
  createdLt?: string;
  startingAfter?: string;
  limit: number;
}

/**
 * The account's events of the last 30 days, as the outbox keeps them (libs/core/src/outbox): the
 * events API (docs/webhooks.md, Events API). Newest first by creation time, ties broken by id, read
 * from events_account_created_idx; a cursor is a keyset seek from the event it names.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly reads: ReadRouting,
  ) {}

  /** The oldest instant the API shows. */
  retentionStart(now: Date = this.clock.now()): Date {
    return new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS);
  }

  /** From the read replica when one serves (docs/scaling.md, Read replica); plain statements, as before, on the primary. */
  list(accountId: string, query: EventQuery): Promise<{ events: EventDto[]; hasMore: boolean }> {
    return this.reads.read((manager) => this.page(manager, accountId, query));
  }

  private async page(manager: EntityManager, accountId: string, query: EventQuery): Promise<{ events: EventDto[]; hasMore: boolean }> {
    const now = this.clock.now();
    const range = dateRange({ gte: query.createdGte, lt: query.createdLt }, now);
    const oldest = this.retentionStart(now);
    const gte = range && range.gte > oldest ? range.gte : oldest;
    const params: unknown[] = [accountId, gte];
    const where = [`e.account_id = $1`, `e.created_at >= $2`];
    if (range) {
      params.push(range.lt);
      where.push(`e.created_at < $${params.length}`);
    }
    if (query.type !== undefined) {
      params.push(query.type);
      where.push(`e.type = $${params.length}`);
    }
    if (query.startingAfter !== undefined) {
      const [cursor] = await queryRows(manager, `SELECT 1 FROM events WHERE id = $1 AND account_id = $2`, [query.startingAfter, accountId]);
      if (!cursor) throw new BadRequestError([{ path: 'starting_after', message: 'is not the id of an event of this account' }]);
      params.push(query.startingAfter);
      // Compared in SQL: created_at has microseconds, which a Date would lose.
      where.push(`(e.created_at, e.id) < (SELECT c.created_at, c.id FROM events c WHERE c.id = $${params.length})`);
    }
    params.push(query.limit + 1);
    const rows = await queryRows<EventRow>(
      manager,
      `SELECT e.id, e.type, e.data, e.created_at FROM events e
        WHERE ${where.join(' AND ')}
        ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
      params,
    );
    const hasMore = rows.length > query.limit;
    return { events: rows.slice(0, query.limit).map(toEventDto), hasMore };
  }

  /** One event of the account's last 30 days; another account's, or an older one, is not found. */
  async get(accountId: string, id: string): Promise<EventDto> {
    const [row] = await queryRows<EventRow>(
      this.dataSource.manager,
      `SELECT id, type, data, created_at FROM events WHERE id = $1 AND account_id = $2 AND created_at >= $3`,
      [id, accountId, this.retentionStart()],
    );
    if (!row) throw new NotFoundError('Event');
    return toEventDto(row);
  }
}

export function toEventDto(row: EventRow): EventDto {
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), data: row.data };
}
