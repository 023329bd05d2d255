'use strict';
// What the box is and how busy it is: versions and sizes for the report, the load average, and CPU
// time per process from /proc (the service, Postgres, Redis and this load generator share the cores).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { Client } = require('pg');
const { PG, APPLICATION_NAME } = require('./config');
const { round } = require('./numbers');
const { walSettings } = require('./wal');

async function describeMachine() {
  const client = new Client({ connectionString: `${PG}/postgres`, application_name: APPLICATION_NAME });
  await client.connect();
  const pgVersion = (await client.query('SELECT version()')).rows[0].version;
  const postgresSettings = await walSettings(client);
  await client.end();
  let redisVersion = null;
  try {
    redisVersion = execFileSync('redis-cli', ['INFO', 'server'], { encoding: 'utf8' }).match(/redis_version:(\S+)/)[1];
  } catch {
    redisVersion = 'unknown';
  }
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0] && cpus[0].model,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: pgVersion.split(' on ')[0],
    postgresSettings,
    redis: redisVersion,
    autocannon: require('autocannon/package.json').version,
  };
}

function loadavg() {
  return os.loadavg().map((l) => round(l, 2));
}

/**
 * CPU jiffies: whole machine, and per process (the service, every postgres process, redis, this
 * load generator, the bench's PgBouncer when it runs one). Kept per PID, so a backend that exits between two snapshots is left out rather
 * than subtracted; one that starts in between counts from zero.
 */
function cpuSnapshot(servicePid, poolerPid = null) {
  const total = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const snap = { total: total.reduce((a, b) => a + b, 0), idle: total[3] + total[4], procs: new Map(), pooler: Boolean(poolerPid) };
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const jiffies = Number(fields[11]) + Number(fields[12]);
    let kind = null;
    if (servicePid && Number(pid) === servicePid) kind = 'service';
    else if (Number(pid) === process.pid) kind = 'bench';
    else if (comm.startsWith('postgres')) kind = 'postgres';
    else if (comm.startsWith('redis')) kind = 'redis';
    else if (poolerPid && Number(pid) === poolerPid) kind = 'pooler';
    if (kind) snap.procs.set(`${pid}:${fields[19]}`, { kind, jiffies }); // pid + start time: a reused pid is another process
  }
  return snap;
}

function cpuDiff(a, b) {
  const total = b.total - a.total || 1;
  const used = { service: 0, postgres: 0, redis: 0, bench: 0, pooler: 0 };
  for (const [key, p] of b.procs) used[p.kind] += p.jiffies - (a.procs.get(key)?.jiffies ?? 0);
  const share = (k) => round((100 * used[k]) / total, 1);
  const busy = round(100 - (100 * (b.idle - a.idle)) / total, 1);
  const parts = { service: share('service'), postgres: share('postgres'), redis: share('redis'), loadGenerator: share('bench') };
  // The bench's PgBouncer (BENCH_POOLER) gets a share of its own; without one the shape is as before.
  if (b.pooler) parts.pgbouncer = share('pooler');
  return { busyPct: busy, ...parts, otherPct: round(busy - Object.values(parts).reduce((x, y) => x + y, 0), 1), note: '% of all cores' };
}

/** CPU jiffies of each thread of process `pid` (the service: its main thread is the API, a worker thread runs the worker side). */
function threadSnapshot(pid) {
  const threads = new Map();
  let tids = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return { at: Date.now(), threads };
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // schedstat: ns on a CPU, ns runnable but waiting for one (a starved thread shows here, not in CPU time).
      const waitedNs = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
      threads.set(tid, { jiffies: Number(fields[11]) + Number(fields[12]), waitedNs });
    } catch {
      // the thread ended
    }
  }
  return { at: Date.now(), threads };
}

/**
 * Per-thread CPU between two snapshots, as % of one core (100 = a thread that never waited): the main
 * thread (tid = pid, the API), the busiest other thread (the worker thread, which runs the relay, the
 * deliverer and the other background work) and the rest (GC, libuv pool, V8 platform) together.
 */
function threadDiff(a, b, pid) {
  const seconds = (b.at - a.at) / 1000 || 1;
  const pct = (jiffies) => round(jiffies / seconds, 1); // 100 jiffies per second per core
  const used = [...b.threads].map(([tid, t]) => [tid, t.jiffies - (a.threads.get(tid)?.jiffies ?? 0), t.waitedNs - (a.threads.get(tid)?.waitedNs ?? 0)]);
  const main = used.find(([tid]) => Number(tid) === pid) ?? [pid, 0, 0];
  const others = used.filter(([tid]) => Number(tid) !== pid).sort((x, y) => y[1] - x[1]);
  const rest = others.slice(1).reduce((n, [, j]) => n + j, 0);
  const waited = (t) => (t ? round(t[2] / 1e7 / seconds, 1) : null); // % of the wall time spent runnable but off the CPU
  return {
    mainThreadPctOfCore: pct(main[1]),
    busiestOtherThreadPctOfCore: pct(others[0]?.[1] ?? 0),
    restPctOfCore: pct(rest),
    mainThreadWaitingForCpuPct: waited(main),
    busiestOtherThreadWaitingForCpuPct: waited(others[0]),
    note: '% of one core; 100 = saturated. WaitingForCpu: % of the time runnable but not running (the box, not the service)',
  };
}

module.exports = { describeMachine, loadavg, cpuSnapshot, cpuDiff, threadSnapshot, threadDiff };
