import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { hashSecret, newId, randomToken } from '@app/core';

/**
 * Who a session is for: the dashboard, one run of the OAuth authorize pages, or the step of those
 * pages between a right password and a right two-factor code (docs/oauth.md).
 */
export type SessionPurpose = 'dashboard' | 'oauth_authorize' | 'oauth_two_factor';

interface Lifetime {
  /** Ends this long after the last request. */
  idleSeconds: number;
  /** Ends this long after it started, however busy. */
  absoluteSeconds: number;
}

/** A sign-in in this many also deletes sessions dead for a day, so the table holds about a day of history. */
const PURGE_EVERY_N_STARTS = 100;

/**
 * docs/dashboard.md: 2 h without a request or 12 h in all; an authorize run lasts 30 minutes, and
 * the wait for its two-factor code five (docs/oauth.md).
 */
export const SESSION_LIFETIMES: Record<SessionPurpose, Lifetime> = {
  dashboard: { idleSeconds: 2 * 3600, absoluteSeconds: 12 * 3600 },
  oauth_authorize: { idleSeconds: 30 * 60, absoluteSeconds: 30 * 60 },
  oauth_two_factor: { idleSeconds: 5 * 60, absoluteSeconds: 5 * 60 },
};

export interface Session {
  /** `ses_`: the public handle (rate limits, audit); never the cookie value. */
  id: string;
  purpose: SessionPurpose;
  userId: string | null;
  currentAccountId: string | null;
  /** Synchronizer token every state-changing request of the session must echo. */
  csrfToken: string;
  createdAt: Date;
  /** The earlier of the absolute and the idle end, as of now. */
  expiresAt: Date;
}

interface SessionRow {
  id: string;
  purpose: SessionPurpose;
  user_id: string | null;
  current_account_id: string | null;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/**
 * The one server-side sign-in session of the service, in Postgres, used by the dashboard and the
 * OAuth authorize pages. The cookie carries a random token; only its SHA-256 is stored, so a read
 * of the table gives nobody a usable session. Ending is a mark (ended_at), so a copied cookie stays
 * dead. Changes that shorten a session are announced to every process (see the dashboard
 * migration), so cached session credentials never outlive them.
 */
@Injectable()
export class SessionStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new session with a new token: the token is returned once and is the cookie's value. */
  async start(
    purpose: SessionPurpose,
    owner: { userId: string | null; currentAccountId?: string | null },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ session: Session; token: string }> {
    const token = randomToken(32);
    const rows: SessionRow[] = await manager.query(
      `INSERT INTO sessions (id, token_hash, purpose, user_id, current_account_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
       RETURNING *`,
      [
        newId('ses'),
        hashSecret(token),
        purpose,
        owner.userId,
        owner.currentAccountId ?? null,
        randomToken(32),
        SESSION_LIFETIMES[purpose].absoluteSeconds,
      ],
    );
    if (Math.random() < 1 / PURGE_EVERY_N_STARTS) void this.purge().catch(() => undefined);
    return { session: toSession(rows[0]), token };
  }

  /** Deletes sessions ended or expired more than a day ago; returns how many. */
  async purge(): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM sessions WHERE ended_at < now() - interval '1 day' OR expires_at < now() - interval '1 day'`,
    )) as [unknown, number];
    return deleted;
  }

  /** The live session of this token, its use recorded (which restarts the idle clock); or null. */
  async find(purpose: SessionPurpose, token: string | undefined): Promise<Session | null> {
    if (!token) return null;
    // An UPDATE answers [rows, count].
    const [rows] = (await this.dataSource.query(
      `UPDATE sessions SET last_seen_at = now()
        WHERE token_hash = $1 AND purpose = $2 AND ended_at IS NULL
          AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $3)
        RETURNING *`,
      [hashSecret(token), purpose, SESSION_LIFETIMES[purpose].idleSeconds],
    )) as [SessionRow[], number];
    return rows[0] ? toSession(rows[0]) : null;
  }

  /** Ends the session; false when it had already ended (so of two racing requests only one proceeds). */
  async end(id: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const [, affected] = (await manager.query(`UPDATE sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`, [
      id,
    ])) as [unknown, number];
    return affected > 0;
  }

  /** Ends every session of the user (both purposes), but `exceptId` if given. */
  async endAllOf(userId: string, manager: EntityManager, exceptId?: string): Promise<void> {
    await manager.query(
      `UPDATE sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL AND id IS DISTINCT FROM $2`,
      [userId, exceptId ?? null],
    );
  }

  /**
   * A user left an account: their live sessions acting on it move to `nextAccountId` (another of
   * their accounts, which libs/account chooses), or to none, so their next request on it is refused.
   */
  async moveOffAccount(userId: string, accountId: string, nextAccountId: string | null, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE sessions SET current_account_id = $3 WHERE user_id = $1 AND current_account_id = $2 AND ended_at IS NULL`,
      [userId, accountId, nextAccountId],
    );
  }

  async setCurrentAccount(id: string, accountId: string | null, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(`UPDATE sessions SET current_account_id = $2 WHERE id = $1`, [id, accountId]);
  }
}

function toSession(row: SessionRow): Session {
  const idleEnd = row.last_seen_at.getTime() + SESSION_LIFETIMES[row.purpose].idleSeconds * 1000;
  return {
    id: row.id,
    purpose: row.purpose,
    userId: row.user_id,
    currentAccountId: row.current_account_id,
    csrfToken: row.csrf_token,
    createdAt: row.created_at,
    expiresAt: new Date(Math.min(idleEnd, row.expires_at.getTime())),
  };
}
