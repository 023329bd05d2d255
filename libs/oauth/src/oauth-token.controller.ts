import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AUTH_FAILURES_BUCKET, AUTH_FAILURES_PER_MINUTE, clientAddress, OAUTH_SCOPES, Public, RateLimiter } from '@app/auth';
import { ApiBodyExamples, APP_CONFIG, AppConfig } from '@app/core';
import {
  AuthorizationServerMetadataDto,
  OAuthErrorResponseDto,
  RevokeRequestDto,
  TokenRequestDto,
  TokenResponseDto,
  REVOKE_REQUEST_EXAMPLES,
  TOKEN_REQUEST_EXAMPLES,
} from './dto/oauth.dto';
import { OAuthClientService } from './oauth-client.service';
import { OAuthError } from './oauth-error';
import { OAuthTokenService } from './oauth-token.service';

const TOO_MANY_FAILURES = {
  status: 429,
  type: OAuthErrorResponseDto,
  description: '`rate_limited`: this address failed client authentication too often; see `Retry-After`.',
  headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 1 } } },
};

const BODY_TOO_LARGE = {
  status: 413,
  type: OAuthErrorResponseDto,
  description: '`invalid_request`: the form body is larger than 100 KB.',
};

/**
 * The app-facing OAuth endpoints. They answer in RFC 6749 terms (`{error, error_description}`,
 * `Cache-Control: no-store`), so they write their responses themselves instead of going through
 * the /v1 error filter.
 */
@ApiTags('OAuth')
@Public()
@Controller()
export class OAuthTokenController {
  constructor(
    private readonly clients: OAuthClientService,
    private readonly tokens: OAuthTokenService,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('oauth/token')
  @ApiOperation({
    operationId: 'oauthToken',
    summary: 'Exchange an authorization code, or refresh, for tokens',
    description:
      'Client authentication with HTTP Basic (client_secret_basic). `authorization_code` needs `code`, `redirect_uri` ' +
      'and `code_verifier`; a code works once, for five minutes, and a second use revokes what the first issued. ' +
      '`refresh_token` rotates the refresh token; presenting a used one revokes the whole grant.',
  })
  @ApiSecurity('client_secret_basic')
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBodyExamples(TokenRequestDto, TOKEN_REQUEST_EXAMPLES)
  @ApiResponse({ status: 200, type: TokenResponseDto, description: 'Tokens (RFC 6749 §5.1).' })
  @ApiResponse({ status: 400, type: OAuthErrorResponseDto, description: 'RFC 6749 §5.2 error.' })
  @ApiResponse({ status: 401, type: OAuthErrorResponseDto, description: '`invalid_client`, with `WWW-Authenticate: Basic`.' })
  @ApiResponse(BODY_TOO_LARGE)
  @ApiResponse(TOO_MANY_FAILURES)
  async token(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(req, res, async () => {
      const params = formParams(req);
      const client = await this.authenticateClient(req, params);
      switch (params.grant_type) {
        case 'authorization_code':
          return this.tokens.exchangeCode(client, params);
        case 'refresh_token':
          return this.tokens.refresh(client, params);
        case undefined:
          throw new OAuthError('invalid_request', 'grant_type is required.');
        default:
          throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
      }
    });
  }

  @Post('oauth/revoke')
  @ApiOperation({
    operationId: 'oauthRevoke',
    summary: 'Revoke a token (RFC 7009)',
    description:
      'Revokes the grant the token belongs to: its refresh token, its access tokens and their rotations. ' +
      'An unknown or already revoked token also answers 200.',
  })
  @ApiSecurity('client_secret_basic')
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBodyExamples(RevokeRequestDto, REVOKE_REQUEST_EXAMPLES)
  @ApiResponse({ status: 200, description: 'Revoked, or nothing to revoke. No body.' })
  @ApiResponse({ status: 400, type: OAuthErrorResponseDto, description: 'RFC 6749 §5.2 error.' })
  @ApiResponse({ status: 401, type: OAuthErrorResponseDto, description: '`invalid_client`, with `WWW-Authenticate: Basic`.' })
  @ApiResponse(BODY_TOO_LARGE)
  @ApiResponse(TOO_MANY_FAILURES)
  async revoke(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(req, res, async () => {
      const params = formParams(req);
      const client = await this.authenticateClient(req, params);
      if (!params.token) throw new OAuthError('invalid_request', 'token is required.');
      await this.tokens.revoke(client, params.token);
      return null;
    });
  }

  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({ operationId: 'oauthMetadata', summary: 'Authorization-server metadata (RFC 8414)', security: [] })
  @ApiResponse({ status: 200, type: AuthorizationServerMetadataDto, description: 'Endpoints and capabilities, for OAuth client libraries.' })
  metadata(): AuthorizationServerMetadataDto {
    const base = this.config.publicBaseUrl;
    return {
      issuer: base,
      authorization_endpoint: `${this.config.authUrl}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      scopes_supported: [...OAUTH_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic'],
      authorization_response_iss_parameter_supported: true,
    };
  }

  /**
   * Client authentication, counted like a failed bearer credential on /v1: the failures of one address
   * share one budget, so guessing client secrets here is refused as soon as guessing API keys is.
   */
  private async authenticateClient(req: Request, params: Record<string, string>) {
    try {
      return await this.clients.authenticate(req.headers.authorization, params);
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        await this.limiter.hit(AUTH_FAILURES_BUCKET, clientAddress(req), AUTH_FAILURES_PER_MINUTE);
      }
      throw error;
    }
  }

  /** Runs the grant and writes the RFC 6749 response: JSON (or no body) on success, the error otherwise. */
  private async answer(req: Request, res: Response, work: () => Promise<object | null>): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    const failures = await this.limiter.peek(AUTH_FAILURES_BUCKET, clientAddress(req), AUTH_FAILURES_PER_MINUTE);
    if (!failures.allowed) {
      res.setHeader('Retry-After', String(failures.resetSeconds));
      res.status(429).json({ error: 'rate_limited', error_description: 'Too many failed authentication attempts; retry later.' });
      return;
    }
    try {
      const body = await work();
      if (body) res.status(200).json(body);
      else res.status(200).end();
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      res.status(error.status).json(error.toJSON());
    }
  }
}

/**
 * The form fields as single strings. RFC 6749 §3.2 requires a form-encoded body and forbids repeated
 * parameters; anything else is invalid_request. So is a NUL character (U+0000): no field can hold
 * one, and PostgreSQL would refuse it in a query.
 */
function formParams(req: Request): Record<string, string> {
  if (!req.is('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  }
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be sent once, as a plain value.`);
    if (name.includes('\u0000') || value.includes('\u0000')) {
      throw new OAuthError('invalid_request', 'The body contains a NUL character (U+0000), which no field accepts.');
    }
    params[name] = value;
  }
  return params;
}
