import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { FIRST_PARTY_SCOPES, OAUTH_SCOPES, OAuthScope } from '@app/auth';
import { BadRequestError, constantTimeEqual, controlCharacterProblem, FieldIssue, hashSecret, newId, newSecret } from '@app/core';
import { OAuthClientEntity } from './entities/oauth-client.entity';
import { OAuthError } from './oauth-error';

export interface CreateOAuthClientInput {
  name: string;
  redirectUris: string[];
  scopes: string[];
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
// Compared against when the client_id is unknown, so an unknown id costs as much as a wrong secret.
const DECOY_HASH = hashSecret(newSecret('ocs'));

/** Marketplace apps: registered by platform administrators (CLI only), authenticated at the token endpoint. */
@Injectable()
export class OAuthClientService {
  constructor(
    @InjectRepository(OAuthClientEntity) private readonly clients: Repository<OAuthClientEntity>,
    private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  /** `origin`: the operator CLI, recorded with the client (docs/audit-log.md: an entry of no account). */
  async create(input: CreateOAuthClientInput, origin?: AuditOrigin): Promise<{ clientId: string; clientSecret: string }> {
    const name = input.name.trim();
    const scopes = [...new Set(input.scopes)];
    const redirectUris = [...new Set(input.redirectUris)];
    const issues: FieldIssue[] = [];
    if (name.length < 1 || name.length > 100) issues.push({ path: 'name', message: 'must be 1 to 100 characters' });
    const nameProblem = controlCharacterProblem(name);
    if (nameProblem) issues.push({ path: 'name', message: nameProblem });
    if (redirectUris.length < 1 || redirectUris.length > 10) {
      issues.push({ path: 'redirectUris', message: 'must have 1 to 10 redirect URIs' });
    }
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) issues.push({ path: 'redirectUris', message: `${JSON.stringify(uri)} ${problem}` });
    }
    if (scopes.length === 0) issues.push({ path: 'scopes', message: `must name at least one of ${OAUTH_SCOPES.join(' ')}` });
    for (const scope of scopes) {
      if (!OAUTH_SCOPES.includes(scope as OAuthScope)) {
        const why = (FIRST_PARTY_SCOPES as readonly string[]).includes(scope) ? 'is never granted to apps' : 'is not a scope';
        issues.push({ path: 'scopes', message: `${scope} ${why}; use ${OAUTH_SCOPES.join(' ')}` });
      }
    }
    if (issues.length) throw new BadRequestError(issues);

    const clientId = newId('oac');
    const clientSecret = newSecret('ocs');
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(OAuthClientEntity, {
        id: clientId,
        name,
        secretHash: hashSecret(clientSecret),
        redirectUris,
        scopes: scopes as OAuthScope[],
      });
      if (origin) {
        await this.audit.record(manager, {
          accountId: null,
          origin,
          action: 'oauth_client.created',
          targetType: 'oauth_client',
          targetId: clientId,
          metadata: { name, redirectUris, scopes },
        });
      }
    });
    return { clientId, clientSecret };
  }

  find(clientId: string): Promise<OAuthClientEntity | null> {
    return this.clients.findOneBy({ id: clientId });
  }

  /**
   * client_secret_basic (RFC 6749 §2.3.1), the one method we take: id and secret form-encoded, then
   * Basic. The secret's hash is compared in constant time; every failure is the same invalid_client.
   */
  async authenticate(authorization: string | undefined, body: Record<string, unknown>): Promise<OAuthClientEntity> {
    if ('client_secret' in body) {
      throw new OAuthError('invalid_client', 'Send the client credentials with HTTP Basic (client_secret_basic), not in the body.');
    }
    const credentials = parseBasic(authorization);
    if (!credentials) throw new OAuthError('invalid_client', 'Client authentication with HTTP Basic is required.');
    // No client id or secret holds a NUL (U+0000), and PostgreSQL refuses one in the lookup.
    if (credentials.clientId.includes('\u0000') || credentials.secret.includes('\u0000')) {
      throw new OAuthError('invalid_client', 'Client authentication failed.');
    }
    const client = await this.find(credentials.clientId);
    const matches = constantTimeEqual(hashSecret(credentials.secret), client?.secretHash ?? DECOY_HASH);
    if (!client || !matches) throw new OAuthError('invalid_client', 'Client authentication failed.');
    if (body.client_id !== undefined && body.client_id !== client.id) {
      throw new OAuthError('invalid_client', 'client_id in the body does not match the authenticated client.');
    }
    return client;
  }
}

/** Why a redirect URI cannot be registered, or null: https, or http on a loopback host (RFC 8252). */
export function redirectUriProblem(uri: string): string | null {
  // Before parsing: the URL parser drops tabs and line breaks, so the URI it checks would not be the one stored and matched.
  const control = controlCharacterProblem(uri);
  if (control) return control;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (uri.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must use https (http only on a loopback host)';
}

function parseBasic(header: string | undefined): { clientId: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}
