import type { EntityManager } from 'typeorm';
import { Statement } from '../database/statement';
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
  const statement = new Statement();
  const ids = recordEventsIn(statement, 'outbox_events', events);
  await manager.query(statement.text('SELECT 1'), statement.params);
  return ids;
}

/**
 * The same as a part of a larger statement (which commits as one): adds CTE `name` inserting the
 * events when `onlyIf` (an SQL condition) holds, and returns their ids.
 */
export function recordEventsIn(statement: Statement, name: string, events: NewEvent[], onlyIf = 'true'): string[] {
  const ids = events.map((event) => event.id ?? newId('evt'));
  statement.with(
    name,
    `INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest(${statement.param(ids)}::text[], ${statement.param(events.map((e) => e.accountId))}::text[],
                          ${statement.param(events.map((e) => e.type))}::text[], ${statement.param(events.map((e) => JSON.stringify(e.data)))}::jsonb[])
      WHERE ${onlyIf}`,
  );
  return ids;
}

export async function recordEvent(manager: EntityManager, event: NewEvent): Promise<string> {
  const [id] = await recordEvents(manager, [event]);
  return id;
}
