import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OAUTH_SCOPES } from '@app/auth';
import type { RequestExamples } from '@app/core';

/** Form fields of POST /oauth/token (application/x-www-form-urlencoded). Documentation only: the controller reads the form itself. */
export class TokenRequestDto {
  @ApiProperty({ enum: ['authorization_code', 'refresh_token'] })
  grant_type: string;

  /** authorization_code: the code the redirect delivered. No code is longer; a longer one is `invalid_grant`. */
  @ApiPropertyOptional({ maxLength: 200 })
  code?: string;

  /** authorization_code: exactly the redirect_uri of the authorization request. Redirect URIs over 2048 characters are not supported. */
  @ApiPropertyOptional({ maxLength: 2048 })
  redirect_uri?: string;

  /** authorization_code: the PKCE verifier whose S256 challenge was sent to /oauth/authorize. */
  @ApiPropertyOptional({ minLength: 43, maxLength: 128 })
  code_verifier?: string;

  /** refresh_token: the current refresh token; it is consumed and a new one returned. No token is longer; a longer one is `invalid_grant`. */
  @ApiPropertyOptional({ maxLength: 200 })
  refresh_token?: string;

  /** refresh_token: optionally narrows the new access token to these space-separated scopes (`invalid_scope` when it names any other). */
  @ApiPropertyOptional({ maxLength: 200 })
  scope?: string;
}

/*
 * Request examples (docs/api-contract.md, Examples). Codes and tokens are made up: a real exchange uses
 * the code the redirect delivered and the verifier the app kept (README, Connecting a marketplace app).
 */
export const TOKEN_REQUEST_EXAMPLES: RequestExamples<TokenRequestDto> = {
  authorizationCode: {
    summary: 'Exchange the code the redirect delivered',
    value: {
      grant_type: 'authorization_code',
      code: 'ocd_PaXGs05KOyHy3pAf0ryvFPZlxZBk2vLwat0TG8BS6GX',
      redirect_uri: 'https://app.acme.test/oauth/callback',
      code_verifier: 'SEDPAZOo11sv1WKb0QeFBq44H3MyZgM8hhVqy5SPDCS',
    },
  },
  refreshToken: {
    summary: 'Refresh: a new access token and a new refresh token',
    value: { grant_type: 'refresh_token', refresh_token: 'ort_25TaFyey9G8q5m7UbdeAAe3Nv462o27hk8RsexS6wAW' },
  },
};

/** RFC 6749 §5.1. */
export class TokenResponseDto {
  /** Opaque `oat_` token for `Authorization: Bearer`; valid one hour. */
  access_token: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type: string;

  /** Seconds until the access token expires (3600). */
  @ApiProperty({ type: 'integer', minimum: 1, example: 3600 })
  expires_in: number;

  /** Opaque `ort_` token; valid 30 days, single use (each refresh returns a new one). */
  refresh_token: string;

  /** The granted scopes, space-separated. */
  @ApiProperty({ example: 'rewards:read rewards:write' })
  scope: string;
}

/** Form fields of POST /oauth/revoke (RFC 7009). */
export class RevokeRequestDto {
  /** A refresh or access token; its whole grant (both tokens and their rotations) is revoked. */
  @ApiProperty({ maxLength: 200 })
  token: string;

  @ApiPropertyOptional({ enum: ['refresh_token', 'access_token'] })
  token_type_hint?: string;
}

export const REVOKE_REQUEST_EXAMPLES: RequestExamples<RevokeRequestDto> = {
  refreshToken: {
    summary: "Disconnect: revoke the connection's grant",
    value: { token: 'ort_25TaFyey9G8q5m7UbdeAAe3Nv462o27hk8RsexS6wAW', token_type_hint: 'refresh_token' },
  },
};

/** RFC 6749 §5.2. */
export class OAuthErrorResponseDto {
  @ApiProperty({
    enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope', 'rate_limited'],
    description: 'RFC 6749 error code; `rate_limited` (429) when the address has failed client authentication too often.',
  })
  error: string;

  /** Human-readable explanation. */
  error_description: string;
}

/** RFC 8414 authorization-server metadata. */
export class AuthorizationServerMetadataDto {
  /** `{base_url}`; equals the `iss` parameter of every authorization response (RFC 9207). */
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string;
  @ApiProperty({ type: [String], enum: OAUTH_SCOPES })
  scopes_supported: string[];
  @ApiProperty({ type: [String], example: ['code'] })
  response_types_supported: string[];
  @ApiProperty({ type: [String], example: ['query'] })
  response_modes_supported: string[];
  @ApiProperty({ type: [String], example: ['authorization_code', 'refresh_token'] })
  grant_types_supported: string[];
  @ApiProperty({ type: [String], example: ['S256'] })
  code_challenge_methods_supported: string[];
  @ApiProperty({ type: [String], example: ['client_secret_basic'] })
  token_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String], example: ['client_secret_basic'] })
  revocation_endpoint_auth_methods_supported: string[];
  authorization_response_iss_parameter_supported: boolean;
}
