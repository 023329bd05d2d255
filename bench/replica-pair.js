'use strict';
// A PostgreSQL primary and a streaming replica of it, of their own (initdb and pg_basebackup -R in a
// temporary folder, on free ports; the cluster control of `npm run chaos`), for the bench's read-replica
// runs (BENCHMARKS.md, Reports on a read replica). Prints the two settings to run the bench with, and
// keeps both servers up until Ctrl-C:
//   node bench/replica-pair.js
//   BENCH_PG=<primary> BENCH_READ_PG=<replica> BENCH_ONLY=report npm run bench
// Both servers run on this machine: the replica's reads take the same cores as the primary's writes.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Postgres } = require('../scripts/chaos/cluster');

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rewards-bench-replica-'));
  fs.chmodSync(tmp, 0o755);
  const primary = new Postgres(tmp, 'primary');
  const replica = new Postgres(tmp, 'replica');
  const stop = async () => {
    await replica.stop().catch(() => undefined);
    await primary.stop().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // However the process ends, the two servers do not outlive it.
  process.once('exit', () => {
    for (const cluster of [replica, primary]) {
      try {
        cluster.run('pg_ctl', ['-D', cluster.dir, '-m', 'immediate', 'stop']);
      } catch {
        // not running
      }
    }
  });
  await primary.init();
  await primary.start();
  await replica.standbyOf(primary);
  await replica.start();
  const base = (url) => url.replace(/\/rewards$/, '');
  process.stdout.write(`BENCH_PG=${base(primary.url)} BENCH_READ_PG=${base(replica.url)}\n`);
  // Up until a signal: a timer keeps the event loop (a pending promise alone would not).
  require('node:timers').setInterval(() => undefined, 60_000);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
