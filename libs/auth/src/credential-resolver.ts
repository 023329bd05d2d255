import { Injectable } from '@nestjs/common';
import type { Principal } from './principal';

/**
 * Turns a presented bearer credential into a Principal. Each credential kind (API key, OAuth
 * access token, dashboard session) is one resolver, registered by the module that owns its table,
 * so the guard never changes when a kind is added.
 */
export interface CredentialResolver {
  /** Cheap syntactic test, e.g. the `sk_` prefix: only the first resolver that claims a credential sees it. */
  claims(credential: string): boolean;
  /** The principal, or null when the credential is unknown, expired or revoked. */
  resolve(credential: string): Promise<Principal | null>;
}

@Injectable()
export class CredentialResolverRegistry {
  private readonly resolvers: CredentialResolver[] = [];

  register(resolver: CredentialResolver): void {
    this.resolvers.push(resolver);
  }

  async resolve(credential: string): Promise<Principal | null> {
    const resolver = this.resolvers.find((candidate) => candidate.claims(credential));
    return resolver ? resolver.resolve(credential) : null;
  }
}
