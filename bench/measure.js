'use strict';
// The frame around every measured phase: wait for the background backlog to drain, then record the
// load average before it, CPU shares, Postgres waits, checkpoints and WAL during it, and file the result by name.
const { log } = require('./config');
const { drain, waitSampler } = require('./database');
const { loadavg, cpuSnapshot, cpuDiff } = require('./machine');
const { walSnapshot, walDiff } = require('./wal');

/**
 * Runs `fn` (which returns the phase's figures) as the measured phase `name` and stores the result
 * in results.phases. `quiesce: false` skips the drain (for phases run while the service is paused).
 */
async function measured(ctx, name, fn, { quiesce = true } = {}) {
  const backlogAtStart = quiesce ? await drain(ctx.db) : null;
  const load = loadavg();
  log(`${name}: load ${load.join(' ')}`);
  const servicePid = ctx.service && ctx.service.pid;
  const poolerPid = ctx.pooler && ctx.pooler.child.pid;
  const cpu0 = cpuSnapshot(servicePid, poolerPid);
  const waits = waitSampler();
  const wal0 = await walSnapshot(ctx.db);
  const out = await fn();
  const cpu = cpuDiff(cpu0, cpuSnapshot(servicePid, poolerPid));
  const wal = walDiff(wal0, await walSnapshot(ctx.db));
  const result = { ...out, loadavg: load, backlogAtStart, cpu, pgWaits: await waits.stop(), wal };
  ctx.results.phases[name] = result;
  log(`${name}: ${JSON.stringify(summaryLine(result))}`);
  return result;
}

function summaryLine(r) {
  const keys = ['rps', 'p50', 'p99', 'errors', 'wallMs', 'deliveriesPerS', 'lagMs', 'issueMs'];
  return Object.fromEntries(keys.filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
}

module.exports = { measured };
