import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { NotificationHandler, PgNotifications } from '@app/core';
import type { Principal } from './principal';

/** Announced by the database whenever a key, grant or connection is revoked or deleted. */
export const CREDENTIALS_REVOKED_CHANNEL = 'credentials_revoked';
/** How long a resolved credential is trusted without a lookup, at most. */
export const CREDENTIAL_CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Turns a presented bearer credential into a Principal. Each credential kind (API key, OAuth
 * access token, dashboard session) is one resolver, registered by the module that owns its table,
 * so the guard never changes when a kind is added.
 */
export interface CredentialResolver {
  /**
   * How the credential arrives: an `Authorization: Bearer` header (the default) or the dashboard's
   * session cookie. A cookie value sent as a bearer token is never tried as a session, and the
   * reverse, so one kind can never stand in for the other.
   */
  readonly transport?: CredentialTransport;
  /** Cheap syntactic test, e.g. the `sk_` prefix: only the first resolver that claims a credential sees it. */
  claims(credential: string): boolean;
  /** The principal, or null when the credential is unknown, expired or revoked. */
  resolve(credential: string): Promise<Principal | null>;
  /** Called when a cached principal is used, e.g. to record the key's last use. */
  used?(principal: Principal): void;
}

export type CredentialTransport = 'bearer' | 'cookie';

interface CacheEntry {
  principal: Principal;
  until: number;
  resolver: CredentialResolver;
}

/**
 * Resolves credentials through their resolver and keeps the result in memory for at most
 * CREDENTIAL_CACHE_TTL_MS (never past the credential's own expiry), so a request with a known
 * credential makes no database round trip. Revocation stays immediate: the database announces
 * every revocation on CREDENTIALS_REVOKED_CHANNEL and the whole cache is dropped; while the
 * LISTEN connection is down nothing is cached or served from the cache. A lookup that was under
 * way when a revocation arrived is not cached.
 */
@Injectable()
export class CredentialResolverRegistry implements NotificationHandler {
  private readonly resolvers: CredentialResolver[] = [];
  private readonly cache = new Map<string, CacheEntry>();
  private generation = 0;
  private subscribed = false;

  constructor(private readonly notifications: PgNotifications) {}

  register(resolver: CredentialResolver): void {
    this.resolvers.push(resolver);
  }

  /** The principal of a credential resolved moments ago and still trusted, without any I/O. */
  cached(credential: string, transport: CredentialTransport = 'bearer'): Principal | null {
    if (this.cache.size === 0 || !this.notifications.live(CREDENTIALS_REVOKED_CHANNEL)) return null;
    const key = digest(transport, credential);
    const entry = this.cache.get(key);
    if (!entry) return null;
    if (entry.until <= Date.now()) {
      this.cache.delete(key);
      return null;
    }
    entry.resolver.used?.(entry.principal);
    return entry.principal;
  }

  async resolve(credential: string, transport: CredentialTransport = 'bearer'): Promise<Principal | null> {
    const hit = this.cached(credential, transport);
    if (hit) return hit;
    const resolver = this.resolvers.find(
      (candidate) => (candidate.transport ?? 'bearer') === transport && candidate.claims(credential),
    );
    if (!resolver) return null;
    this.subscribe();
    // Read before the lookup: a revocation (or a lost listener) during it must not be outlived.
    const generation = this.generation;
    const live = this.notifications.live(CREDENTIALS_REVOKED_CHANNEL);
    const principal = await resolver.resolve(credential);
    if (principal && live && generation === this.generation) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      const until = Math.min(Date.now() + CREDENTIAL_CACHE_TTL_MS, principal.expiresAt?.getTime() ?? Infinity);
      this.cache.set(digest(transport, credential), { principal, until, resolver });
    }
    return principal;
  }

  /**
   * A credential was revoked by this process: forget every cached one now, without waiting for the
   * database's announcement (which other processes act on).
   */
  revoked(): void {
    this.drop();
  }

  onNotify(): void {
    this.drop();
  }

  onReset(): void {
    this.drop();
  }

  private drop(): void {
    this.generation++;
    this.cache.clear();
  }

  private subscribe(): void {
    if (this.subscribed) return;
    this.subscribed = true;
    this.notifications.subscribe(CREDENTIALS_REVOKED_CHANNEL, this);
  }
}

/** Cache keys are hashes: the map never holds a usable secret. */
function digest(transport: CredentialTransport, credential: string): string {
  return createHash('sha256').update(`${transport}:${credential}`).digest('base64');
}
