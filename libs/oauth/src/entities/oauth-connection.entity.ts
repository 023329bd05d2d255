import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@app/auth';

/** An account's consent to an app: what the merchant sees under connected apps and can revoke. */
@Entity('oauth_connections')
export class OAuthConnectionEntity {
  /** `conn_` */
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId: string;

  /** Every scope the merchant has approved for the app on this connection. */
  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
