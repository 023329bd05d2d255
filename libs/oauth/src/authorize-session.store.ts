import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, constantTimeEqual, hashSecret, randomToken, RedisClient } from '@app/core';

export interface AuthorizeSession {
  /** The session id, the cookie's value; Redis keys hold only its hash. */
  id: string;
  /** Synchronizer token every form of the flow must echo (sign-in included, against login CSRF). */
  csrfToken: string;
  /** Set once the merchant has signed in. */
  userId: string | null;
}

const TTL_SECONDS = 30 * 60;

/**
 * The short browser session of the authorize flow, in Redis. A new id is issued at sign-in
 * (no session fixation) and the session ends with the merchant's decision, so a shared browser
 * is not left signed in.
 */
@Injectable()
export class AuthorizeSessionStore {
  /** `__Host-` binds the cookie to our exact origin; browsers accept it only when Secure. */
  readonly cookieName: string;
  private readonly secure: boolean;

  constructor(
    private readonly redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.secure = config.authUrl.startsWith('https:');
    this.cookieName = this.secure ? '__Host-oauth_session' : 'oauth_session';
  }

  async start(userId: string | null): Promise<AuthorizeSession> {
    const session: AuthorizeSession = { id: randomToken(32), csrfToken: randomToken(32), userId };
    await this.redis.set(this.key(session.id), JSON.stringify({ csrfToken: session.csrfToken, userId }), 'EX', TTL_SECONDS);
    return session;
  }

  async find(id: string | undefined): Promise<AuthorizeSession | null> {
    if (!id) return null;
    const stored = await this.redis.get(this.key(id));
    return stored ? { id, ...(JSON.parse(stored) as Omit<AuthorizeSession, 'id'>) } : null;
  }

  /** Ends the session; false when it had already ended (so of two racing requests only one proceeds). */
  async end(id: string): Promise<boolean> {
    return (await this.redis.del(this.key(id))) === 1;
  }

  csrfMatches(session: AuthorizeSession | null, presented: unknown): session is AuthorizeSession {
    return !!session && typeof presented === 'string' && constantTimeEqual(session.csrfToken, presented);
  }

  /** Set-Cookie value: HttpOnly, SameSite=Lax (the app's redirect back to us is a top-level GET), Secure on https. */
  cookie(session: AuthorizeSession | null): string {
    const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(this.secure ? ['Secure'] : [])];
    const value = session ? `${this.cookieName}=${session.id}` : `${this.cookieName}=; Max-Age=0`;
    return [value, ...(session ? [`Max-Age=${TTL_SECONDS}`] : []), ...attributes].join('; ');
  }

  /** The session id from a Cookie header. */
  idFrom(cookieHeader: string | undefined): string | undefined {
    for (const part of (cookieHeader ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === this.cookieName) return value.join('=');
    }
    return undefined;
  }

  private key(id: string): string {
    return this.redis.key('oauth-session', hashSecret(id));
  }
}
