import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CredentialResolver, CredentialResolverRegistry, OAUTH_SCOPES, OAuthScope, Principal } from '@app/auth';
import { Clock, hashSecret } from '@app/core';
import { ACCESS_TOKEN_PREFIX } from './oauth-token.service';

/**
 * Resolves `oat_` access tokens for the AuthGuard: live only while unexpired (by the injected Clock,
 * which set the expiry: docs/testing.md, Time) and while neither its grant (token family) nor the
 * merchant's connection is revoked. The principal carries only the granted app scopes, so
 * first-party routes (top-ups, branding) answer 403 to any token.
 */
@Injectable()
export class OAuthAccessTokenResolver implements CredentialResolver, OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: CredentialResolverRegistry,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  claims(credential: string): boolean {
    return credential.startsWith(`${ACCESS_TOKEN_PREFIX}_`);
  }

  async resolve(credential: string): Promise<Principal | null> {
    const [row] = (await this.dataSource.query(
      `SELECT t.scopes, t.expires_at, c.account_id, c.client_id, g.id AS grant_id
         FROM oauth_tokens t
         JOIN oauth_grants g ON g.id = t.grant_id
         JOIN oauth_connections c ON c.id = g.connection_id
        WHERE t.token_hash = $1 AND t.kind = 'access' AND t.expires_at > $2
          AND g.revoked_at IS NULL AND c.revoked_at IS NULL`,
      [hashSecret(credential), this.clock.now()],
    )) as { scopes: string[]; expires_at: Date; account_id: string; client_id: string; grant_id: string }[];
    if (!row) return null;
    return {
      accountId: row.account_id,
      credentialKind: 'oauth_token',
      // The family, not the token: rotating every hour must not reset the rate-limit budget.
      credentialId: row.grant_id,
      scopes: new Set(row.scopes.filter((scope): scope is OAuthScope => OAUTH_SCOPES.includes(scope as OAuthScope))),
      expiresAt: row.expires_at,
      oauthClientId: row.client_id,
    };
  }
}
