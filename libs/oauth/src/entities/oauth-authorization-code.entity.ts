import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@app/auth';

/** A consent waiting to be exchanged: single use, five minutes, bound to client, redirect URI and PKCE challenge. */
@Entity('oauth_authorization_codes')
export class OAuthAuthorizationCodeEntity {
  @PrimaryColumn({ name: 'code_hash', type: 'text' })
  codeHash: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  /** Who approved. */
  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ name: 'redirect_uri', type: 'text' })
  redirectUri: string;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  /** base64url(SHA-256(code_verifier)); only S256 is accepted. */
  @Column({ name: 'code_challenge', type: 'text' })
  codeChallenge: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
