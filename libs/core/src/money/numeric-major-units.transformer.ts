import type { ValueTransformer } from 'typeorm';

/**
 * Catalog values are `numeric(12,2)` in major units (25.00), which the pg driver returns as
 * strings. The API shows them as JSON numbers: at most 12 digits with 2 decimals, so a JS number
 * represents every one of them exactly enough to print back the same value.
 */
export const numericMajorUnits: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
