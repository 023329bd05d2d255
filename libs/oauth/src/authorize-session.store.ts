import { Inject, Injectable } from '@nestjs/common';
import { SessionCookie, SESSION_LIFETIMES, SessionStore } from '@app/auth';
import { APP_CONFIG, AppConfig, constantTimeEqual } from '@app/core';

export interface AuthorizeSession {
  /** The stored session's id (`ses_`). */
  id: string;
  /** The cookie's value; the database holds only its hash. Absent on a session found by cookie. */
  token?: string;
  /** Synchronizer token every form of the flow must echo (sign-in included, against login CSRF). */
  csrfToken: string;
  /** Set once the merchant has signed in. */
  userId: string | null;
}

/**
 * The short browser session of the authorize flow: a session of the shared store (libs/auth),
 * with its own purpose, lifetime and cookie. A new one is issued at sign-in (no session fixation)
 * and it ends with the merchant's decision, so a shared browser is not left signed in.
 */
@Injectable()
export class AuthorizeSessionStore {
  private readonly sessionCookie: SessionCookie;

  constructor(
    private readonly sessions: SessionStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // SameSite=Lax: the app's redirect to us is a top-level GET from another site, which must carry it.
    this.sessionCookie = new SessionCookie(
      'oauth_session',
      config.authUrl.startsWith('https:'),
      'Lax',
      SESSION_LIFETIMES.oauth_authorize.absoluteSeconds,
    );
  }

  async start(userId: string | null): Promise<AuthorizeSession> {
    const { session, token } = await this.sessions.start('oauth_authorize', { userId });
    return { id: session.id, token, csrfToken: session.csrfToken, userId };
  }

  async find(token: string | undefined): Promise<AuthorizeSession | null> {
    const session = await this.sessions.find('oauth_authorize', token);
    return session ? { id: session.id, csrfToken: session.csrfToken, userId: session.userId } : null;
  }

  /** Ends the session; false when it had already ended (so of two racing requests only one proceeds). */
  end(id: string): Promise<boolean> {
    return this.sessions.end(id);
  }

  csrfMatches(session: AuthorizeSession | null, presented: unknown): session is AuthorizeSession {
    return !!session && typeof presented === 'string' && constantTimeEqual(session.csrfToken, presented);
  }

  /** Set-Cookie value for a session just started, or one that clears the cookie. */
  cookie(session: AuthorizeSession | null): string {
    return this.sessionCookie.header(session?.token ?? null);
  }

  /** The session token from a Cookie header. */
  idFrom(cookieHeader: string | undefined): string | undefined {
    return this.sessionCookie.valueFrom(cookieHeader);
  }
}
