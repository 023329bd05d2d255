import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Scope } from '@app/auth';
import { bigintCents } from '@app/core';

export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Only the SHA-256 of the `sk_` secret is kept; the secret itself is shown once, at creation. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ type: 'text', default: '' })
  name: string;

  @Column({ name: 'secret_hash', type: 'text' })
  secretHash: string;

  @Column({ name: 'secret_last4', type: 'text' })
  secretLast4: string;

  @Column({ type: 'text', array: true })
  scopes: ApiKeyScope[];

  /** The dashboard member who made the key; null for a key made with the operator CLI. */
  @Column({ name: 'created_by_user_id', type: 'text', nullable: true })
  createdByUserId: string | null;

  /**
   * The API scopes the key holds, fixed at creation from `scopes` and its creator's role then
   * (docs/auth.md, API keys); null for an operator's key, whose `scopes` alone decide.
   */
  @Column({ name: 'granted_scopes', type: 'text', array: true, nullable: true })
  grantedScopes: Scope[] | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** Spending limits (docs/controls.md, Key limits), in the account's primary currency; null: none. */
  @Column({ name: 'max_reward_cents', type: 'bigint', nullable: true, transformer: bigintCents })
  maxRewardCents: number | null;

  @Column({ name: 'daily_limit_cents', type: 'bigint', nullable: true, transformer: bigintCents })
  dailyLimitCents: number | null;
}
