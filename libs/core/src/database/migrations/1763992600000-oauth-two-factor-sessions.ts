import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth authorize pages ask a user with two-factor sign-in for a code after the password
 * (docs/oauth.md). Between the two steps the browser holds a session of its own purpose,
 * `oauth_two_factor`: it names the user whose password was right, lives five minutes and ends when
 * the code is accepted. Being another purpose, it can never be taken for a signed-in authorize session.
 */
export class OAuthTwoFactorSessions1763992600000 implements MigrationInterface {
  name = 'OAuthTwoFactorSessions1763992600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE sessions DROP CONSTRAINT sessions_purpose_check`);
    await db.query(
      `ALTER TABLE sessions ADD CONSTRAINT sessions_purpose_check CHECK (purpose IN ('dashboard', 'oauth_authorize', 'oauth_two_factor'))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM sessions WHERE purpose = 'oauth_two_factor'`);
    await db.query(`ALTER TABLE sessions DROP CONSTRAINT sessions_purpose_check`);
    await db.query(`ALTER TABLE sessions ADD CONSTRAINT sessions_purpose_check CHECK (purpose IN ('dashboard', 'oauth_authorize'))`);
  }
}
