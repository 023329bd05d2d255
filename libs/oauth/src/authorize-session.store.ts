import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionCookie, SESSION_LIFETIMES, SessionPurpose, SessionStore } from '@app/auth';
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

  /** `manager`: inside the caller's transaction (a sign-in and its audit entries commit together). */
  async start(userId: string | null, manager?: EntityManager): Promise<AuthorizeSession> {
    return this.begin('oauth_authorize', userId, manager);
  }

  async find(token: string | undefined): Promise<AuthorizeSession | null> {
    return this.lookUp('oauth_authorize', token);
  }

  /**
   * The wait for a two-factor code after a right password: a session of its own purpose, naming the
   * user, living five minutes. It is never found as a signed-in session, so no form can skip the code.
   */
  startTwoFactor(userId: string): Promise<AuthorizeSession> {
    return this.begin('oauth_two_factor', userId);
  }

  findTwoFactor(token: string | undefined): Promise<AuthorizeSession | null> {
    return this.lookUp('oauth_two_factor', token);
  }

  /** Ends the session; false when it had already ended (so of two racing requests only one proceeds). */
  end(id: string, manager?: EntityManager): Promise<boolean> {
    return this.sessions.end(id, manager);
  }

  private async begin(purpose: SessionPurpose, userId: string | null, manager?: EntityManager): Promise<AuthorizeSession> {
    const { session, token } = await this.sessions.start(purpose, { userId }, manager);
    return { id: session.id, token, csrfToken: session.csrfToken, userId };
  }

  private async lookUp(purpose: SessionPurpose, token: string | undefined): Promise<AuthorizeSession | null> {
    const session = await this.sessions.find(purpose, token);
    return session ? { id: session.id, csrfToken: session.csrfToken, userId: session.userId } : null;
  }

  csrfMatches(session: AuthorizeSession | null, presented: unknown): session is AuthorizeSession {
    return !!session && typeof presented === 'string' && constantTimeEqual(session.csrfToken, presented);
  }

  /** Set-Cookie value for a session just started (either purpose: one cookie), or one that clears the cookie. */
  cookie(session: AuthorizeSession | null): string {
    return this.sessionCookie.header(session?.token ?? null);
  }

  /** The session token from a Cookie header. */
  idFrom(cookieHeader: string | undefined): string | undefined {
    return this.sessionCookie.valueFrom(cookieHeader);
  }
}
