import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditTrail, OAuthScope } from '@app/auth';
import { APP_CONFIG, AppConfig, Clock, hashSecret, newSecret } from '@app/core';
import { OAuthAuthorizationCodeEntity } from './entities/oauth-authorization-code.entity';
import type { OAuthClientEntity } from './entities/oauth-client.entity';
import { OAuthClientService } from './oauth-client.service';
import { parseScope } from './oauth-scope';

export const AUTHORIZATION_CODE_TTL_SECONDS = 300;

/** The parameters of an authorization request, carried through the sign-in and consent forms. */
export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

export interface AuthorizationRequest {
  client: OAuthClientEntity;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string;
  codeChallenge: string;
  /** The validated parameters, to carry through the forms as hidden inputs. */
  params: Record<(typeof AUTHORIZATION_PARAMS)[number], string>;
}

/** Who approved a request, and from where: the audit entry of the connection names them. */
export interface Approver {
  userId: string;
  email: string;
  ipAddress: string | null;
}

export type AuthorizationCheck =
  /** Client or redirect URI cannot be trusted: show an error page, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'untrusted'; message: string }
  /** Trusted redirect URI, bad request: send the error back to the app. */
  | { kind: 'redirect'; location: string }
  | { kind: 'valid'; request: AuthorizationRequest };

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Validates authorization requests and turns an approval into a code. */
@Injectable()
export class OAuthAuthorizationService {
  constructor(
    private readonly clients: OAuthClientService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** `input` is the query of the GET, or the body of a form POST carrying the same parameters. */
  async check(input: Record<string, unknown>): Promise<AuthorizationCheck> {
    const clientId = input.client_id;
    const redirectUri = input.redirect_uri;
    const client = typeof clientId === 'string' && clientId ? await this.clients.find(clientId) : null;
    if (!client) return { kind: 'untrusted', message: 'The application (client_id) is not registered.' };
    if (typeof redirectUri !== 'string' || !client.redirectUris.includes(redirectUri)) {
      return { kind: 'untrusted', message: 'The redirect_uri is not one registered for this application.' };
    }

    const state = typeof input.state === 'string' ? input.state : undefined;
    const fail = (error: string, description: string): AuthorizationCheck => ({
      kind: 'redirect',
      location: this.redirectTo(redirectUri, { error, error_description: description, state }),
    });
    // RFC 6749 §3.1: no parameter may be sent twice; Express turns repeats into arrays.
    const repeated = AUTHORIZATION_PARAMS.find((name) => input[name] !== undefined && typeof input[name] !== 'string');
    if (repeated) return fail('invalid_request', `${repeated} must be sent once.`);
    const param = (name: string) => input[name] as string | undefined;

    if (!param('response_type')) return fail('invalid_request', 'response_type is required.');
    if (param('response_type') !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
    if (!state) return fail('invalid_request', 'state is required.');
    if (state.length > 1024) return fail('invalid_request', 'state must be at most 1024 characters.');
    if (param('code_challenge_method') !== 'S256') {
      return fail('invalid_request', 'PKCE is required with code_challenge_method=S256 (plain is refused).');
    }
    const codeChallenge = param('code_challenge');
    if (!codeChallenge || !CODE_CHALLENGE.test(codeChallenge)) {
      return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
    }
    const scopes = parseScope(param('scope') ?? '');
    if (!scopes?.length) return fail('invalid_scope', 'scope must name one or more scopes, separated by spaces.');
    if (scopes.some((scope) => !client.scopes.includes(scope))) {
      return fail('invalid_scope', 'scope asks for more than this application is registered for.');
    }
    const params = Object.fromEntries(AUTHORIZATION_PARAMS.map((name) => [name, param(name) ?? ''])) as AuthorizationRequest['params'];
    return { kind: 'valid', request: { client, redirectUri, scopes, state, codeChallenge, params } };
  }

  /**
   * Stores a code for the approved request and returns where to send the browser with it. The
   * approval is the merchant connecting the app to the account: audited there, with the code.
   */
  async approve(request: AuthorizationRequest, approver: Approver, accountId: string): Promise<string> {
    const code = newSecret('ocd');
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(OAuthAuthorizationCodeEntity, {
        codeHash: hashSecret(code),
        clientId: request.client.id,
        accountId,
        userId: approver.userId,
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        codeChallenge: request.codeChallenge,
        // The token endpoint checks it against the same clock (docs/testing.md, Time).
        expiresAt: new Date(this.clock.now().getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
      });
      await this.audit.record(manager, {
        accountId,
        actor: { type: 'user', id: approver.userId, label: approver.email },
        action: 'connected_app.connected',
        targetType: 'oauth_client',
        targetId: request.client.id,
        metadata: { appName: request.client.name, scopes: request.scopes },
        ipAddress: approver.ipAddress,
      });
    });
    return this.redirectTo(request.redirectUri, { code, state: request.state });
  }

  deny(request: AuthorizationRequest): string {
    return this.redirectTo(request.redirectUri, {
      error: 'access_denied',
      error_description: 'The merchant declined to connect the application.',
      state: request.state,
    });
  }

  /** The redirect URI with the response added to its query, and `iss` (RFC 9207) against mix-up attacks. */
  private redirectTo(redirectUri: string, response: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries({ ...response, iss: this.config.publicBaseUrl })) {
      if (value !== undefined) url.searchParams.append(name, value);
    }
    return url.toString();
  }
}
