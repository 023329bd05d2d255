/** Scopes an OAuth app may request (docs/auth.md). */
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
 * Scopes only an API key or a dashboard session holds: funding the wallet and changing branding or
 * catalog rules. No OAuth client can request them, so a token gets 403 on those routes.
 */
export const FIRST_PARTY_SCOPES = ['account:write', 'wallet:write'] as const;

/**
 * Permissions that exist only in the dashboard: managing API keys, the team, connected apps, and
 * reading the audit log. They are granted by a member's role and by nothing else, so a leaked API
 * key or OAuth token can never create keys or invite people.
 */
export const DASHBOARD_SCOPES = ['api_keys:manage', 'team:manage', 'connected_apps:manage', 'audit_log:read'] as const;

/** What an API key or OAuth token can ever be granted. */
export const API_SCOPES = [...OAUTH_SCOPES, ...FIRST_PARTY_SCOPES] as const;
export const ALL_SCOPES = [...API_SCOPES, ...DASHBOARD_SCOPES] as const;
export type Scope = (typeof ALL_SCOPES)[number];
export type OAuthScope = (typeof OAUTH_SCOPES)[number];
export type DashboardScope = (typeof DASHBOARD_SCOPES)[number];

/** A member's role in one account, weakest first. */
export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** An API key's `read` grants every `*:read` API scope, `write` every `*:write` one; never a dashboard scope. */
export function scopesOfApiKey(keyScopes: readonly ('read' | 'write')[]): Scope[] {
  return API_SCOPES.filter((scope) => keyScopes.some((granted) => scope.endsWith(`:${granted}`)));
}

const READ_SCOPES: Scope[] = API_SCOPES.filter((scope) => scope.endsWith(':read'));
const DEVELOPER_SCOPES: Scope[] = [...READ_SCOPES, 'rewards:write', 'webhooks:write', 'api_keys:manage'];
const ADMIN_SCOPES: Scope[] = [...DEVELOPER_SCOPES, 'wallet:write', 'account:write', 'team:manage', 'connected_apps:manage', 'audit_log:read'];
const SCOPES_OF_ROLE: Record<Role, readonly Scope[]> = {
  viewer: READ_SCOPES,
  developer: DEVELOPER_SCOPES,
  admin: ADMIN_SCOPES,
  // An owner may do what an admin may, and also make, demote or remove owners (checked by the team service).
  owner: ADMIN_SCOPES,
};

/** The scopes a dashboard session acts with on an account where the user has `role`. */
export function scopesOfRole(role: Role): Scope[] {
  return [...SCOPES_OF_ROLE[role]];
}

/**
 * The API scopes of a key a dashboard member makes: read/write as above, but never more than the
 * member's role (docs/auth.md, API keys): a developer's `write` key holds `rewards:write` and
 * `webhooks:write` only.
 */
export function scopesOfMemberKey(keyScopes: readonly ('read' | 'write')[], role: Role): Scope[] {
  const allowed = SCOPES_OF_ROLE[role];
  return scopesOfApiKey(keyScopes).filter((scope) => allowed.includes(scope));
}

/** The API scopes a member with `role` may hold through a key: a key holding others outgrew its creator. */
export function apiScopesOfRole(role: Role): Scope[] {
  return API_SCOPES.filter((scope) => SCOPES_OF_ROLE[role].includes(scope));
}
