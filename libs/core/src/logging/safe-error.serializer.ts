import { stdSerializers } from 'pino';

/** What a database error may say in a log: where and which rule, never the values involved. */
const DATABASE_ERROR_FIELDS = ['code', 'constraint', 'table', 'column', 'schema', 'dataType', 'routine', 'severity'] as const;

type Serialized = Record<string, unknown>;

/**
 * The `err` serializer of every log line. A database error keeps only its SQLSTATE code and the
 * names of the constraint, table and column: its parameters, its SQL, its `detail` ("Key (email)=(...)")
 * and even its message (`invalid input syntax for type uuid: "<value>"`) can carry secrets or personal
 * data, so none of them is logged. Other errors are serialized as usual; a database error inside one
 * (a cause, or a property) gets the same treatment.
 * docs/operations.md describes the logging policy.
 */
export function serializeErrorSafely(error: unknown, depth = 0): unknown {
  if (!error || typeof error !== 'object') return error;
  if (isDatabaseError(error)) return describeDatabaseError(error);
  // An Error, or what pino's standard serializer already made of one (pino-http wraps this serializer).
  const serialized: Serialized = error instanceof Error ? (stdSerializers.err(error) as unknown as Serialized) : { ...(error as Serialized) };
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) serialized.cause = cause;
  if (depth < 5) {
    for (const [key, value] of Object.entries(serialized)) {
      if (value && typeof value === 'object' && (value instanceof Error || isDatabaseError(value) || key === 'cause')) {
        serialized[key] = serializeErrorSafely(value, depth + 1);
      }
    }
  }
  return serialized;
}

function isDatabaseError(value: unknown): value is Serialized {
  if (!value || typeof value !== 'object') return false;
  const candidate = value as Serialized;
  // TypeORM's QueryFailedError (query, parameters, driverError) and pg's DatabaseError (SQLSTATE code, severity).
  if ('driverError' in candidate || ('query' in candidate && 'parameters' in candidate)) return true;
  return typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code) && 'severity' in candidate;
}

function describeDatabaseError(error: Serialized): Serialized {
  const driver = (error.driverError && typeof error.driverError === 'object' ? error.driverError : error) as Serialized;
  const described: Serialized = { type: 'DatabaseError', message: 'database statement failed (values withheld)' };
  for (const field of DATABASE_ERROR_FIELDS) {
    const value = driver[field] ?? error[field];
    if (value !== undefined && value !== null) described[field] = value;
  }
  if (typeof error.stack === 'string') described.stack = error.stack.split('\n').slice(1).join('\n');
  return described;
}
