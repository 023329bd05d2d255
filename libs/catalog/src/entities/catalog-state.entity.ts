import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The single row that versions the catalog: ETags derive from `revision`. */
@Entity('catalog_state')
export class CatalogStateEntity {
  @PrimaryColumn({ type: 'smallint', default: 1 })
  id: number;

  /** Bumped by every sync that changed a brand or an item. */
  @Column({ type: 'bigint', default: 0, transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  revision: number;

  @Column({ name: 'changed_at', type: 'timestamptz', nullable: true })
  changedAt: Date | null;

  @Column({ name: 'synced_at', type: 'timestamptz', nullable: true })
  syncedAt: Date | null;
}
