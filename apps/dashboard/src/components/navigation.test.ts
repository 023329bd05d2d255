import { describe, expect, it } from 'vitest';
// The server's own table of what each role may do: the app holds no copy of it, the session reports it.
import { ROLES, scopesOfRole } from '../../../../libs/auth/src/scopes';
import { mayOpen, pagesFor } from './navigation';

describe('the pages a session is offered follow the scopes it reports', () => {
  it('each role, through the scopes the server gives it, is offered the pages docs/dashboard.md lists', () => {
    const offered = Object.fromEntries(ROLES.map((role) => [role, pagesFor(scopesOfRole(role)).map((page) => page.label)]));
    expect(offered).toEqual({
      viewer: ['Overview', 'Rewards', 'Approvals', 'Catalog', 'Wallet', 'Reports', 'Webhooks', 'Settings'],
      developer: ['Overview', 'Rewards', 'Send', 'Approvals', 'Catalog', 'Wallet', 'Reports', 'Webhooks', 'Developers', 'Settings'],
      admin: ['Overview', 'Rewards', 'Send', 'Approvals', 'Catalog', 'Wallet', 'Reports', 'Webhooks', 'Developers', 'Team', 'Settings', 'Audit log'],
      owner: ['Overview', 'Rewards', 'Send', 'Approvals', 'Catalog', 'Wallet', 'Reports', 'Webhooks', 'Developers', 'Team', 'Settings', 'Audit log'],
    });
  });

  it('a page is opened only with its scope, whatever the role is called', () => {
    expect(mayOpen(['rewards:read'], '/send')).toBe(false);
    expect(mayOpen(['rewards:read', 'rewards:write'], '/send')).toBe(true);
    expect(mayOpen(['audit_log:read'], '/audit-log')).toBe(true);
    expect(mayOpen([], '/team')).toBe(false);
  });
});
