'use strict';
// A phase's checkpoint and WAL figures (bench/wal.js), read from the machine's PostgreSQL: a requested
// checkpoint and megabytes of WAL written between two snapshots show up in their difference.
const { describe, expect, it } = require('@jest/globals');
const { Client } = require('pg');
const { PG } = require('./config');
const { walSnapshot, walDiff, lsnBytes } = require('./wal');

describe('bench WAL figures', () => {
  it('reads WAL positions past 4 GiB exactly', () => {
    expect(lsnBytes('0/96682BC0')).toBe(0x96682bc0n);
    expect(lsnBytes('1A/0000000F') - lsnBytes('19/FFFFFFF0')).toBe(31n);
    expect(walDiff({ timed: 3, requested: 5, lsn: '2/FFF00000' }, { timed: 3, requested: 7, lsn: '3/00100000' })).toEqual({
      checkpointsTimed: 0,
      checkpointsRequested: 2,
      walMb: 2,
    });
  });

  it('counts a requested checkpoint and the WAL a session writes between two snapshots', async () => {
    const client = new Client({ connectionString: `${PG}/postgres` });
    await client.connect();
    try {
      const before = await walSnapshot(client);
      // 3 MiB into the WAL without touching a table (a logical-decoding message), then a checkpoint.
      await client.query(`SELECT pg_logical_emit_message(false, 'bench-wal-spec', repeat('x', 3 * 1024 * 1024))`);
      await client.query('CHECKPOINT');
      // CHECKPOINT returns once the checkpoint is done, and the checkpointer publishes its counters a moment
      // after that (PostgreSQL 15 wakes the waiting session first): read until they show it, up to 10 s.
      let diff = walDiff(before, await walSnapshot(client));
      for (let waited = 0; diff.checkpointsRequested === 0 && waited < 10_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        diff = walDiff(before, await walSnapshot(client));
      }
      expect(diff.checkpointsRequested).toBeGreaterThanOrEqual(1);
      expect(diff.walMb).toBeGreaterThanOrEqual(3);
    } finally {
      await client.end();
    }
  });
});
