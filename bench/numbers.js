'use strict';
// Rounding and summaries of measured values (percentiles, median and spread of repeated runs).

const round = (n, d = 1) => (n == null || Number.isNaN(n) ? null : Math.round(n * 10 ** d) / 10 ** d);

/** Nearest-rank percentile of an ascending array. */
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : null);

function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: round(pct(s, 50)), p99: round(pct(s, 99)), max: round(s[s.length - 1]), mean: round(s.reduce((a, b) => a + b, 0) / (s.length || 1)) };
}

/** Median (mean of the two middle values for an even count); null when there is nothing. */
function median(values) {
  const s = values.filter((v) => v != null && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!s.length) return null;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Median, lowest and highest of repeated measurements. */
function spread(values, d = 1) {
  const s = values.filter((v) => v != null && !Number.isNaN(v));
  return { median: round(median(s), d), min: round(lowest(s), d), max: round(highest(s), d), n: s.length };
}

// Loops, not `Math.min(...values)` or `push(...items)`: spreading an array into a call puts every element
// on the stack, and a run that collects a few hundred thousand samples overflows it (RangeError).
// ESLint refuses the spread forms (eslint.config.mjs).

/** Smallest of the values (Infinity when there are none, as Math.min()). */
function lowest(values) {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
  return min;
}

/** Largest of the values (-Infinity when there are none, as Math.max()). */
function highest(values) {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** Appends every item to target, in order, and returns target. */
function appendAll(target, items) {
  for (const item of items) target.push(item);
  return target;
}

module.exports = { round, pct, stats, median, spread, lowest, highest, appendAll };
