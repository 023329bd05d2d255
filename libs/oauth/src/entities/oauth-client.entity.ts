import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@app/auth';

/** A marketplace app registered by a platform administrator; only the secret's SHA-256 is kept. */
@Entity('oauth_clients')
export class OAuthClientEntity {
  /** `oac_`; the public client_id. */
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column({ name: 'secret_hash', type: 'text' })
  secretHash: string;

  /** Compared exactly, character for character, with the redirect_uri of a request. */
  @Column({ name: 'redirect_uris', type: 'text', array: true })
  redirectUris: string[];

  /** The scopes the app may ask a merchant for. */
  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
