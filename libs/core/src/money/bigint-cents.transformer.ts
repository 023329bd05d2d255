import type { ValueTransformer } from 'typeorm';

/**
 * Cents live in `bigint` columns, which the pg driver returns as strings. Every cents value the
 * service handles is at most 2^53, so a JS number is exact; larger values are refused loudly.
 */
export const bigintCents: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => {
    if (value === null || value === undefined) return value;
    const cents = Number(value);
    if (!Number.isSafeInteger(cents)) throw new RangeError(`cents value ${value} is out of the safe range`);
    return cents;
  },
};
