import type { EntityManager } from 'typeorm';
import { Condition, Cte, Statement } from '../database/statement';
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
  const { ids } = recordEventsIn(statement, events);
  await manager.query(statement.text('SELECT 1'), statement.params);
  return ids;
}

/**
 * The same as a part of a larger statement (which commits as one): adds a CTE inserting the
 * events when `onlyIf` holds, and returns it with the events' ids.
 */
export function recordEventsIn(
  statement: Statement,
  events: NewEvent[],
  options: { onlyIf?: Condition } = {},
): { cte: Cte; ids: string[] } {
  const ids = events.map((event) => event.id ?? newId('evt'));
  const cte = statement.with(
    'new_outbox_events',
    `INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest(${statement.param(ids)}::text[], ${statement.param(events.map((e) => e.accountId))}::text[],
                          ${statement.param(events.map((e) => e.type))}::text[], ${statement.param(events.map((e) => JSON.stringify(e.data)))}::jsonb[])
      WHERE ${statement.condition(options.onlyIf)}`,
  );
  return { cte, ids };
}

export async function recordEvent(manager: EntityManager, event: NewEvent): Promise<string> {
  const [id] = await recordEvents(manager, [event]);
  return id;
}

/** Marks the events as handed to their consumers (the webhook relay), in the caller's transaction. */
export async function markEventsDispatched(manager: EntityManager, ids: string[]): Promise<void> {
  await manager.query(`UPDATE events SET dispatched_at = clock_timestamp() WHERE id = ANY($1::text[])`, [ids]);
}
