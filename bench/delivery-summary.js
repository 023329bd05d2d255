'use strict';
// What the webhook phase reports about the deliveries its receiver got: pure functions of the receipts
// (`{at, createdAt, id, endpoint}`: when the receiver got it, when the event was committed), so a unit
// test can feed them as many as a fast machine produces (bench/delivery-summary.spec.js).
const { round, stats, lowest, highest } = require('./numbers');

/** Lag figures of receipts: all, and by thirds of the load window (by when the event was committed). */
function lagFigures(receipts, from, to) {
  const lag = (xs) => stats(xs.map((r) => r.at - r.createdAt).filter((x) => !Number.isNaN(x)));
  const third = (to - from) / 3;
  return {
    lagMs: lag(receipts),
    lagFirstThirdMs: lag(receipts.filter((r) => r.createdAt < from + third)),
    lagLastThirdMs: lag(receipts.filter((r) => r.createdAt >= to - third)),
  };
}

/**
 * Deliveries of one run whose load went from `from` to `to` (ms since the epoch): how many, how many
 * twice to one endpoint, the rate from the first receipt to the last, the lags, and how long the drain
 * took after the load stopped.
 */
function deliverySummary(receipts, from, to) {
  const first = lowest(receipts.map((r) => r.at));
  const last = highest(receipts.map((r) => r.at));
  const any = receipts.length > 0;
  return {
    deliveries: receipts.length,
    duplicates: receipts.length - new Set(receipts.map((r) => `${r.endpoint} ${r.id}`)).size,
    deliveriesPerS: any && last > first ? round(receipts.length / ((last - first) / 1000), 0) : null,
    ...lagFigures(receipts, from, to),
    drainAfterLoadS: any ? round((last - to) / 1000, 2) : null,
  };
}

module.exports = { lagFigures, deliverySummary };
