import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope } from '@app/auth';

/**
 * A token family: the tokens issued from one authorization code and all their rotations. Revoking
 * it (code replay, refresh-token reuse, revocation, disconnect) ends every token in it at once.
 */
@Entity('oauth_grants')
export class OAuthGrantEntity {
  /** `ogr_`; access tokens of the family are rate limited under this id, so rotation gives no fresh budget. */
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'connection_id', type: 'text' })
  connectionId: string;

  @Column({ name: 'code_hash', type: 'text' })
  codeHash: string;

  @Column({ type: 'text', array: true })
  scopes: OAuthScope[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
