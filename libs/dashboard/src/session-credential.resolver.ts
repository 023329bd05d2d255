import { Injectable, OnModuleInit } from '@nestjs/common';
import { IdentityRepository } from '@app/account';
import { CredentialResolver, CredentialResolverRegistry, Principal, scopesOfRole, SessionStore } from '@app/auth';

/**
 * Turns the dashboard's session cookie into a principal acting on the session's current account,
 * with the scopes of the user's role there, read from the membership at resolution time. The
 * registry caches the result briefly; a role change, a removal, an account switch or an ended
 * session is announced by the database and drops that cache on every process.
 */
@Injectable()
export class SessionCredentialResolver implements CredentialResolver, OnModuleInit {
  readonly transport = 'cookie' as const;

  constructor(
    private readonly sessions: SessionStore,
    private readonly registry: CredentialResolverRegistry,
    private readonly identity: IdentityRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  claims(): boolean {
    return true;
  }

  async resolve(token: string): Promise<Principal | null> {
    const session = await this.sessions.find('dashboard', token);
    if (!session?.userId || !session.currentAccountId) return null;
    const member = await this.identity.member(session.currentAccountId, session.userId);
    if (!member) return null;
    return {
      accountId: session.currentAccountId,
      credentialKind: 'session',
      credentialId: session.id,
      scopes: new Set(scopesOfRole(member.role)),
      expiresAt: session.expiresAt,
      user: { id: session.userId, email: member.email, role: member.role },
      csrfToken: session.csrfToken,
    };
  }
}
