import type { EntityManager } from 'typeorm';
import { newId } from '../ids/ids';
import type { EventType } from './outbox-event.entity';

export interface NewEvent {
  /** Optional: callers that show the event elsewhere (a reward timeline) reuse its id. */
  id?: string;
  accountId: string;
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Records domain events inside the caller's transaction, in one statement however many. There is
 * deliberately no way to record one outside a transaction: an event must commit or roll back
 * with the change it reports.
 */
export async function recordEvents(manager: EntityManager, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map((event) => event.id ?? newId('evt'));
  await manager.query(
    `INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])`,
    [ids, events.map((e) => e.accountId), events.map((e) => e.type), events.map((e) => JSON.stringify(e.data))],
  );
  return ids;
}

export async function recordEvent(manager: EntityManager, event: NewEvent): Promise<string> {
  const [id] = await recordEvents(manager, [event]);
  return id;
}
