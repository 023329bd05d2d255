/**
 * The RFC 6749 §5.2 error codes this server gives. `unauthorized_client` never arises: every
 * registered client may use both grants. Nor does RFC 7009's `unsupported_token_type`: both token
 * types can be revoked.
 */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope';

/**
 * An error of the token and revoke endpoints. These answer `{error, error_description}` as RFC 6749
 * requires, not the `{error, message}` of /v1, so they are rendered by the OAuth controller itself.
 */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }

  /** invalid_client is 401 with a challenge naming the only method we take (RFC 6749 §5.2). */
  get status(): number {
    return this.code === 'invalid_client' ? 401 : 400;
  }

  get headers(): Record<string, string> {
    return this.code === 'invalid_client' ? { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' } : {};
  }

  toJSON() {
    return { error: this.code, error_description: this.description };
  }
}
