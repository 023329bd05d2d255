import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { CredentialResolverRegistry, OAuthScope } from '@app/auth';
import { Clock, constantTimeEqual, hashSecret, newId, newSecret, queryRows } from '@app/core';
import { OAuthAuthorizationCodeEntity } from './entities/oauth-authorization-code.entity';
import type { OAuthClientEntity } from './entities/oauth-client.entity';
import { OAuthConnectionEntity } from './entities/oauth-connection.entity';
import { OAuthGrantEntity } from './entities/oauth-grant.entity';
import { OAuthTokenEntity, OAuthTokenKind } from './entities/oauth-token.entity';
import { OAuthError } from './oauth-error';
import { parseScope } from './oauth-scope';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const ACCESS_TOKEN_PREFIX = 'oat';
export const REFRESH_TOKEN_PREFIX = 'ort';

/** RFC 6749 §5.1. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Outcome = { tokens: TokenResponse } | { error: OAuthError; revoked?: boolean };

// RFC 7636 §4.1: 43 to 128 unreserved characters.
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * The token endpoint's grants and RFC 7009 revocation. Failures that must leave a trace (a code
 * burnt, a family revoked) are returned from the transaction rather than thrown, so they commit.
 * Codes and tokens expire by the injected Clock (docs/testing.md, Time).
 */
@Injectable()
export class OAuthTokenService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly credentials: CredentialResolverRegistry,
    private readonly clock: Clock,
  ) {}

  async exchangeCode(client: OAuthClientEntity, params: Record<string, string>): Promise<TokenResponse> {
    const code = required(params, 'code');
    const redirectUri = required(params, 'redirect_uri');
    const verifier = required(params, 'code_verifier');
    if (!CODE_VERIFIER.test(verifier)) {
      throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.');
    }
    const codeHash = hashSecret(code);
    const outcome = await this.dataSource.transaction(async (manager): Promise<Outcome> => {
      // The row lock makes two concurrent exchanges of one code take turns: the second sees it consumed.
      const row = await manager.findOne(OAuthAuthorizationCodeEntity, {
        where: { codeHash },
        lock: { mode: 'pessimistic_write' },
      });
      if (!row || row.clientId !== client.id) return invalidGrant('The authorization code is invalid.');
      if (row.consumedAt) {
        // A replayed code means the first exchange may have been an attacker's: end what it issued.
        await manager.update(OAuthGrantEntity, { codeHash, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
        return { ...invalidGrant('The authorization code has already been used; the tokens issued from it are revoked.'), revoked: true };
      }
      // Any exchange by its client uses the code up, even a failed one: a code gets one try.
      await manager.update(OAuthAuthorizationCodeEntity, { codeHash }, { consumedAt: () => 'now()' });
      if (row.expiresAt <= this.clock.now()) return invalidGrant('The authorization code has expired.');
      if (row.redirectUri !== redirectUri) {
        return invalidGrant('redirect_uri differs from the one of the authorization request.');
      }
      if (!constantTimeEqual(s256(verifier), row.codeChallenge)) {
        return invalidGrant('code_verifier does not match the code_challenge.');
      }
      const connectionId = await this.connect(manager, row.accountId, client.id, row.scopes);
      const grantId = newId('ogr');
      await manager.insert(OAuthGrantEntity, { id: grantId, connectionId, codeHash, scopes: row.scopes });
      return { tokens: await this.issue(manager, grantId, row.scopes, row.scopes) };
    });
    if ('error' in outcome) {
      // Code or refresh-token reuse revoked a token family: forget cached tokens now.
      if (outcome.revoked) this.credentials.revoked();
      throw outcome.error;
    }
    return outcome.tokens;
  }

  async refresh(client: OAuthClientEntity, params: Record<string, string>): Promise<TokenResponse> {
    const refreshToken = required(params, 'refresh_token');
    const requested = params.scope === undefined ? null : parseScope(params.scope);
    if (params.scope !== undefined && !requested?.length) {
      throw new OAuthError('invalid_scope', 'scope must name scopes originally granted.');
    }
    const outcome = await this.dataSource.transaction(async (manager): Promise<Outcome> => {
      const token = await manager.findOne(OAuthTokenEntity, {
        where: { tokenHash: hashSecret(refreshToken), kind: 'refresh' },
        lock: { mode: 'pessimistic_write' },
      });
      const grant = token && (await manager.findOneBy(OAuthGrantEntity, { id: token.grantId }));
      const connection = grant && (await manager.findOneBy(OAuthConnectionEntity, { id: grant.connectionId }));
      if (!token || !grant || !connection || connection.clientId !== client.id) {
        return invalidGrant('The refresh token is invalid.');
      }
      if (grant.revokedAt || connection.revokedAt) {
        return invalidGrant('The refresh token has been revoked; the merchant must connect the app again.');
      }
      if (token.consumedAt) {
        // A rotated token presented again: one of the two holders is not the app. End the family.
        await manager.update(OAuthGrantEntity, { id: grant.id }, { revokedAt: () => 'now()' });
        return { ...invalidGrant('The refresh token was already used; every token of this grant is now revoked.'), revoked: true };
      }
      if (token.expiresAt <= this.clock.now()) return invalidGrant('The refresh token has expired.');
      if (requested?.some((scope) => !token.scopes.includes(scope))) {
        return { error: new OAuthError('invalid_scope', 'scope must be a subset of the scopes originally granted.') };
      }
      await manager.update(OAuthTokenEntity, { tokenHash: token.tokenHash }, { consumedAt: () => 'now()' });
      return { tokens: await this.issue(manager, grant.id, requested ?? token.scopes, token.scopes) };
    });
    if ('error' in outcome) {
      // Code or refresh-token reuse revoked a token family: forget cached tokens now.
      if (outcome.revoked) this.credentials.revoked();
      throw outcome.error;
    }
    return outcome.tokens;
  }

  /**
   * RFC 7009: revokes the grant the token belongs to (its refresh and access tokens together).
   * An unknown token, or one of another client, changes nothing and is not reported.
   */
  async revoke(client: OAuthClientEntity, token: string): Promise<void> {
    const revoked = await queryRows(
      this.dataSource.manager,
      `UPDATE oauth_grants g SET revoked_at = now()
         FROM oauth_tokens t, oauth_connections c
        WHERE t.token_hash = $1 AND g.id = t.grant_id AND c.id = g.connection_id
          AND c.client_id = $2 AND g.revoked_at IS NULL
       RETURNING g.id`,
      [hashSecret(token), client.id],
    );
    if (revoked.length > 0) this.credentials.revoked();
  }

  /** The live connection of the account and app, widened to these scopes, created if absent. */
  private async connect(manager: EntityManager, accountId: string, clientId: string, scopes: OAuthScope[]): Promise<string> {
    const [row] = await manager.query(
      `INSERT INTO oauth_connections (id, account_id, client_id, scopes) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, client_id) WHERE revoked_at IS NULL
       DO UPDATE SET scopes = ARRAY(SELECT DISTINCT s FROM unnest(oauth_connections.scopes || EXCLUDED.scopes) AS s ORDER BY s)
       RETURNING id`,
      [newId('conn'), accountId, clientId, scopes],
    );
    return row.id;
  }

  private async issue(
    manager: EntityManager,
    grantId: string,
    accessScopes: OAuthScope[],
    refreshScopes: OAuthScope[],
  ): Promise<TokenResponse> {
    const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
    const refreshToken = newSecret(REFRESH_TOKEN_PREFIX);
    const now = this.clock.now().getTime();
    const row = (token: string, kind: OAuthTokenKind, scopes: OAuthScope[], ttl: number) => ({
      tokenHash: hashSecret(token),
      kind,
      grantId,
      scopes,
      expiresAt: new Date(now + ttl * 1000),
    });
    await manager.insert(OAuthTokenEntity, [
      row(accessToken, 'access', accessScopes, ACCESS_TOKEN_TTL_SECONDS),
      row(refreshToken, 'refresh', refreshScopes, REFRESH_TOKEN_TTL_SECONDS),
    ]);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: refreshToken,
      scope: accessScopes.join(' '),
    };
  }
}

function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (!value) throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

function invalidGrant(description: string): Outcome {
  return { error: new OAuthError('invalid_grant', description) };
}

/** RFC 7636 S256: base64url(SHA-256(verifier)), unpadded. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
