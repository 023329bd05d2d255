import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { numericMajorUnits } from '@app/core';
import type { CatalogValueType } from '../supplier/supplier.port';

export const CATALOG_VALUE_TYPES: readonly CatalogValueType[] = ['FIXED_VALUE', 'VARIABLE_VALUE'];

/** An orderable item. Values are major units (25 means 25.00); the database checks they fit `valueType`. */
@Entity('catalog_items')
export class CatalogItemEntity {
  @PrimaryColumn('text')
  utid: string;

  @Column({ name: 'brand_key', type: 'text' })
  brandKey: string;

  @Column({ name: 'reward_name', type: 'text' })
  rewardName: string;

  @Column({ name: 'currency_code', type: 'character', length: 3 })
  currencyCode: string;

  @Column({ name: 'value_type', type: 'text' })
  valueType: CatalogValueType;

  @Column({ name: 'face_value', type: 'numeric', precision: 12, scale: 2, nullable: true, transformer: numericMajorUnits })
  faceValue: number | null;

  @Column({ name: 'min_value', type: 'numeric', precision: 12, scale: 2, nullable: true, transformer: numericMajorUnits })
  minValue: number | null;

  @Column({ name: 'max_value', type: 'numeric', precision: 12, scale: 2, nullable: true, transformer: numericMajorUnits })
  maxValue: number | null;

  @Column({ type: 'text', array: true })
  countries: string[];

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
