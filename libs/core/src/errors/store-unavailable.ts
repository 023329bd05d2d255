/**
 * Whether an error means PostgreSQL or Redis could not be reached (down, restarting, refusing
 * connections, a connection cut mid-query), as opposed to a fault of the request or of the code.
 * Those are answered 503 with Retry-After: the same request will likely succeed once the store is
 * back (docs/errors.md, docs/operations.md, Degraded modes).
 */
export function storeUnavailable(exception: unknown): 'postgres' | 'redis' | null {
  // Followed through TypeORM's driverError only: a `cause` chain may lead to an HTTP client's socket error
  // (a supplier, a payment provider), which is not a store of ours.
  for (let error = exception as ErrorLike | undefined, depth = 0; error && depth < 3; depth++) {
    const code = typeof error.code === 'string' ? error.code : '';
    const message = typeof error.message === 'string' ? error.message : '';
    // SQLSTATE class 08 (connection exception), admin/crash shutdown, starting up, too many connections.
    if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return 'postgres';
    if (PG_CONNECTION_MESSAGES.some((text) => message.includes(text))) return 'postgres';
    if (error.name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((text) => message.includes(text))) return 'redis';
    // node-postgres's connect errors are bare socket errors (ioredis' never reach a caller: no offline queue).
    if (NETWORK_CODES.includes(code)) return 'postgres';
    error = error.driverError as ErrorLike | undefined;
  }
  return null;
}

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
}

const NETWORK_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];

/** What node-postgres and its pool say when the server went away or cannot be reached in time. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'terminating connection due to administrator command',
  'the database system is starting up',
  'the database system is shutting down',
];

/** What ioredis says when Redis is away (no offline queue, a command timed out, the connection closed). */
const REDIS_MESSAGES = ["Stream isn't writeable", 'Command timed out', 'Connection is closed', 'Reached the max retries per request limit'];
