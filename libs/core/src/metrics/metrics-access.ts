import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Who may read /metrics: with METRICS_TOKEN set, whoever sends it as a bearer token; without it,
 * only loopback clients (a sidecar or a local agent). Metrics name routes, queues and volumes, which
 * is nothing for the internet to see. Returns why a request is refused, or null.
 */
export function metricsAccessRefusal(token: string | null, authorization: string | undefined, clientAddress: string | undefined): string | null {
  if (token) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    return presented && sameSecret(presented, token) ? null : 'Metrics need `Authorization: Bearer <METRICS_TOKEN>`.';
  }
  return isLoopback(clientAddress) ? null : 'Metrics are served to loopback clients only (set METRICS_TOKEN to read them remotely).';
}

function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}
