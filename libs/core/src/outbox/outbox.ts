import type { EntityManager } from 'typeorm';
import { newId } from '../ids/ids';
import type { EventType } from './outbox-event.entity';

/**
 * Records a domain event inside the caller's transaction. There is deliberately no way to record
 * one outside a transaction: an event must commit or roll back with the change it reports.
 */
export async function recordEvent(
  manager: EntityManager,
  event: { accountId: string; type: EventType; data: Record<string, unknown> },
): Promise<string> {
  const id = newId('evt');
  await manager.query('INSERT INTO events (id, account_id, type, data) VALUES ($1, $2, $3, $4)', [
    id,
    event.accountId,
    event.type,
    JSON.stringify(event.data),
  ]);
  return id;
}
