import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@app/auth';

export type OAuthTokenKind = 'access' | 'refresh';

/** An access (`oat_`, one hour) or refresh (`ort_`, 30 days, single use) token, kept as its SHA-256. */
@Entity('oauth_tokens')
export class OAuthTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column('text')
  kind: OAuthTokenKind;

  @Column({ name: 'grant_id', type: 'text' })
  grantId: string;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Refresh tokens only: set when rotated; presenting it again is treated as theft. */
  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
