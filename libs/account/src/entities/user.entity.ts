import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A person who signs in (dashboard, OAuth consent); belongs to accounts through memberships. */
@Entity('users')
export class UserEntity {
  @PrimaryColumn('text')
  id: string;

  /** Stored lower-cased; unique. */
  @Column('text')
  email: string;

  /** scrypt, see PasswordHasher. */
  @Column({ name: 'password_hash', type: 'text', select: false })
  passwordHash: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  /** Base32 TOTP secret: pending until `totpEnabledAt` is set. Never selected unless asked for. */
  @Column({ name: 'totp_secret', type: 'text', nullable: true, select: false })
  totpSecret: string | null;

  @Column({ name: 'totp_enabled_at', type: 'timestamptz', nullable: true })
  totpEnabledAt: Date | null;

  /** The RFC 6238 time step of the last code accepted: a code of that step or earlier is refused. */
  @Column({ name: 'totp_last_step', type: 'bigint', nullable: true, select: false })
  totpLastStep: string | null;
}
