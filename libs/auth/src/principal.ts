import type { Role, Scope } from './scopes';

export type CredentialKind = 'api_key' | 'oauth_token' | 'session';

/** Who is calling: the account acted on, the credential used and what it may do. */
export interface Principal {
  accountId: string;
  credentialKind: CredentialKind;
  /** Id of the API key, token or session; rate limits are counted against it. */
  credentialId: string;
  scopes: ReadonlySet<Scope>;
  /** When the credential itself expires, if it does (an access token): it is not trusted past this. */
  expiresAt?: Date;
  /** The signed-in person behind a dashboard session, and their role in `accountId`. */
  user?: { id: string; email: string; role: Role };
  /** A dashboard session's CSRF token: state-changing requests made with the cookie must echo it. */
  csrfToken?: string;
  /** The OAuth app behind an access token, for the audit log. */
  oauthClientId?: string;
  /** An API key's spending limits (docs/controls.md, Key limits), in the primary currency; absent when it has none. */
  keyLimits?: KeyLimits;
}

export interface KeyLimits {
  maxRewardCents: number | null;
  dailyLimitCents: number | null;
}
