import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const MEMBERSHIP_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

@Entity('memberships')
export class MembershipEntity {
  @PrimaryColumn({ name: 'account_id', type: 'text' })
  accountId: string;

  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  @Column('text')
  role: MembershipRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
