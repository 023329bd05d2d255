'use strict';
// The database server's checkpoints and WAL during a phase. A checkpoint that starts inside a phase makes the next
// change to every page write a full copy of it into the WAL (a full-page image), so every commit behind those
// writes waits for more WAL to be flushed: whether one fell in a phase's window explains much of the spread
// between runs of the same code. Both figures are the cluster's (pg_stat_bgwriter, pg_current_wal_lsn), so they
// include whatever else the server did meanwhile (another database's work, a DROP DATABASE's forced checkpoint).
const { round } = require('./numbers');

/** The server settings that decide how often checkpoints come and how much WAL a change writes. */
const SETTINGS = ['max_wal_size', 'checkpoint_timeout', 'checkpoint_completion_target', 'shared_buffers', 'wal_compression', 'full_page_writes', 'synchronous_commit'];

/** `max_wal_size` and the rest of SETTINGS as the server reports them (with their units), over `client`. */
async function walSettings(client) {
  const { rows } = await client.query(`SELECT name, current_setting(name) AS value FROM pg_settings WHERE name = ANY($1) ORDER BY name`, [SETTINGS]);
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

/** The server's checkpoint counters and WAL position, over `client` (any database of the server: both are the server's). */
async function walSnapshot(client) {
  const { rows } = await client.query(
    `SELECT checkpoints_timed::bigint AS timed, checkpoints_req::bigint AS requested, pg_current_wal_lsn()::text AS lsn FROM pg_stat_bgwriter`,
  );
  return { timed: Number(rows[0].timed), requested: Number(rows[0].requested), lsn: rows[0].lsn };
}

/** Bytes between two `X/Y` WAL positions: BigInt, as a position passes 2^53 on a long-lived server. */
function lsnBytes(lsn) {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Checkpoints begun (on the timer, or requested: by WAL volume, a CHECKPOINT, a DROP DATABASE) and the WAL written between two snapshots. */
function walDiff(before, after) {
  return {
    checkpointsTimed: after.timed - before.timed,
    checkpointsRequested: after.requested - before.requested,
    walMb: round(Number(lsnBytes(after.lsn) - lsnBytes(before.lsn)) / 2 ** 20, 1),
  };
}

module.exports = { walSettings, walSnapshot, walDiff, lsnBytes };
