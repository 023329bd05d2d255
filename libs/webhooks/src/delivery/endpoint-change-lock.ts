import type { EntityManager } from 'typeorm';

/**
 * The lock that orders the fan-out against a pause, resume or delete of an account's endpoints
 * (docs/webhooks.md, Pausing and 410). The relay takes it shared, for each account of its batch,
 * before it reads that account's endpoints; a pause, resume or delete takes it exclusively before it
 * changes an endpoint. So a change commits either before the fan-out reads the endpoints (and is
 * seen by it) or after the fan-out has committed (and sees its deliveries: a resume then unparks what
 * the fan-out parked). It is a transaction-scoped advisory lock: it lives in the lock manager only,
 * writes nothing to the endpoint rows (no tuple lock, no MultiXact, no WAL), and shared holders never
 * wait for each other. Keyed by account (a hash of its id: a collision only makes one wait longer).
 */
const ENDPOINT_CHANGE_LOCK_CLASS = 0x77686b00;

/** Shared, for the fan-out: one statement, accounts in a fixed order (two relays and a change never deadlock). */
export async function lockAccountsForFanOut(manager: EntityManager, accountIds: string[]): Promise<void> {
  await manager.query(
    `SELECT pg_advisory_xact_lock_shared($1::int, hashtext(a)) FROM (SELECT DISTINCT unnest($2::text[]) AS a ORDER BY 1) AS accounts`,
    [ENDPOINT_CHANGE_LOCK_CLASS, accountIds],
  );
}

/** Exclusive, for a pause, resume or delete: the first statement of its transaction. */
export async function lockAccountForEndpointChange(manager: EntityManager, accountId: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock($1::int, hashtext($2))`, [ENDPOINT_CHANGE_LOCK_CLASS, accountId]);
}
