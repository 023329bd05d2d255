import type { RedisOptions } from 'ioredis';

/**
 * How every Redis connection of a process reconnects: at once, then every 100 ms more up to 1 s
 * between tries, for ever. ioredis' default waits up to 2 s and Bull's up to 20 s, which kept a
 * process on the old connection for many seconds after Redis came back (docs/operations.md,
 * Degraded modes).
 */
export function reconnectPromptly(times: number): number {
  return Math.min(times * 100, 1_000);
}

/**
 * After a failover behind one address (docs/scaling.md, Redis failover), a connection still open to the
 * demoted primary has its writes refused with READONLY: it reconnects (reaching the new primary) and
 * sends the refused command again there (2), instead of failing every write until something closes it.
 */
export function reconnectOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/** Redis URL into ioredis options (Bull takes options, not a URL, once anything is added to them). */
export function redisOptionsFromUrl(redisUrl: string): RedisOptions {
  const url = new URL(redisUrl);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : 6379,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
    ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
    retryStrategy: reconnectPromptly,
    reconnectOnError: reconnectOnReadOnly,
    connectTimeout: 2_000,
  };
}
