import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A brand as last synced from the supplier; `active` is false once the supplier stops offering it. */
@Entity('catalog_brands')
export class CatalogBrandEntity {
  @PrimaryColumn({ name: 'brand_key', type: 'text' })
  brandKey: string;

  @Column('text')
  name: string;

  @Column('text')
  description: string;

  @Column({ name: 'short_description', type: 'text' })
  shortDescription: string;

  @Column('text')
  disclaimer: string;

  @Column({ name: 'image_url', type: 'text' })
  imageUrl: string;

  @Column({ type: 'text', array: true })
  categories: string[];

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
