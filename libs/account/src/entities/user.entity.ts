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
}
