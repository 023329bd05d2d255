/** Scopes an OAuth app may request (SPEC.md, Authentication). */
export const OAUTH_SCOPES = [
  'account:read',
  'catalog:read',
  'rewards:read',
  'rewards:write',
  'wallet:read',
  'webhooks:read',
  'webhooks:write',
] as const;

/**
 * Scopes only an API key (and later the dashboard) holds: funding the wallet and changing branding.
 * No OAuth client can request them, so a token gets 403 on those routes (SPEC: tokens never fund
 * wallets or change branding).
 */
export const FIRST_PARTY_SCOPES = ['account:write', 'wallet:write'] as const;

export const ALL_SCOPES = [...OAUTH_SCOPES, ...FIRST_PARTY_SCOPES] as const;
export type Scope = (typeof ALL_SCOPES)[number];
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** DECISIONS §10: an API key's `read` grants every `*:read` scope, `write` every `*:write` scope. */
export function scopesOfApiKey(keyScopes: readonly ('read' | 'write')[]): Scope[] {
  return ALL_SCOPES.filter((scope) => keyScopes.some((granted) => scope.endsWith(`:${granted}`)));
}
