import { OAUTH_SCOPES, OAuthScope } from '@app/auth';

/**
 * A space-separated scope parameter as a list without repeats, or null when it names something
 * that is not an app scope (first-party scopes such as wallet:write are never grantable).
 */
export function parseScope(value: string): OAuthScope[] | null {
  const names = [...new Set(value.split(' ').filter(Boolean))];
  if (names.some((name) => !OAUTH_SCOPES.includes(name as OAuthScope))) return null;
  return names as OAuthScope[];
}

/** What each scope lets an app do, in the words the consent page shows the merchant. */
export const SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  'account:read': 'See your account profile, wallet balance and reward statistics',
  'catalog:read': 'See the gift-card catalog',
  'rewards:read': 'See your rewards and whether they were delivered',
  'rewards:write': 'Send, resend and cancel rewards paid from your wallet, and see the gift-card codes they issue',
  'wallet:read': 'See your wallet balance and transactions',
  'webhooks:read': 'See your webhook endpoints and their deliveries',
  'webhooks:write': 'Create, change, test and remove webhook endpoints',
};
