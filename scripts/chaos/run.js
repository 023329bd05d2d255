#!/usr/bin/env node
'use strict';
// `npm run chaos`: fault injection against a private copy of the whole system (docs/operations.md,
// "Chaos run"). Reads top to bottom as the run: start everything, seed merchants, start the workload,
// a baseline, each fault followed by its settling, a final settle, the audit, the table.
//
//   npm run chaos                  every fault, then all combined (about 15 minutes)
//   npm run chaos -- --short       three faults (about 5 minutes)
//   --faults=redis-down,api-kill   these faults only        --strict   availability findings fail the run too
//   --keep                         keep the temporary folder (logs, data) afterwards
//   --rate=3                       operations a second, all clients together
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { Cluster } = require('./cluster');
const { Db, backlogBefore, waitDrained, backlogTotal, snapshotChecks, finalChecks } = require('./audit');
const { LONG, SHORT, faultList, inject } = require('./faults');
const { request } = require('./http');
const { phaseRow, observations, table, lastTroubleEnd, SLOW_MS } = require('./report');
const { SmtpSink, WebhookReceiver } = require('./sinks');
const { ROOT, log, sleep } = require('./util');
const { Workload, loadCatalog } = require('./workload');
// The runner (workload, receiver, mail sink) stays on the loopback too (docs/operations.md, "Tests are hermetic").
const outboundGuard = require('../../test/support/outbound-guard');
const guardState = outboundGuard.install();

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const unknown = args.filter((a) => !/^--(short|strict|keep|faults=.+|rate=\d+(\.\d+)?)$/.test(a));
if (unknown.length > 0) {
  process.stderr.write(`unknown argument(s): ${unknown.join(' ')}\nusage: npm run chaos [-- --short] [--strict] [--keep] [--faults=a,b] [--rate=N]\n`);
  process.exit(2);
}

const SHORT_RUN = flag('short');
const SETTINGS = {
  faults: faultList(option('faults') ? option('faults').split(',') : SHORT_RUN ? SHORT : LONG),
  merchants: SHORT_RUN ? 4 : 8,
  users: SHORT_RUN ? 6 : 10,
  // Operations a second, all clients together. The run measures recovery, not capacity: the rate must
  // leave the service (and a busy machine) room to work off a backlog.
  rate: Number(option('rate') ?? 3),
  baselineMs: SHORT_RUN ? 10_000 : 20_000,
  // How long a fault may take to settle before the run moves on (its recovery is then "> bound").
  settleBoundMs: SHORT_RUN ? 60_000 : 180_000,
  // Before the final audit: long enough for every lease and retry to run out.
  finalSettleMs: 240_000,
  receiverFailRate: 0.05,
};

let cluster = null;
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    if (cluster) await cluster.stopAll();
  })();
  return cleaning;
}
process.on('exit', () => cluster && cluster.stopAllNow());
process.on('uncaughtException', (error) => {
  log(`chaos run failed: ${error.stack || error.message}`);
  process.exit(2);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping everything`);
    cleanup().finally(() => process.exit(130));
  });
}

async function seed(cluster, receiver, api) {
  const merchants = new Array(SETTINGS.merchants);
  const endpoints = new Array(SETTINGS.merchants);
  const one = async (i) => {
    const { accountId } = await cluster.cli(['merchant:create', '--name', `Chaos ${i}`, '--email', `chaos${i}@chaos.test`, '--password', 'chaos password 123']);
    const { key } = await cluster.cli(['api-key:create', '--account', accountId, '--scopes', 'read,write']);
    const auth = { authorization: `Bearer ${key}` };
    const hookPath = `/hook/${accountId}`;
    // Before the top-up, so every event of the account has the endpoint to go to.
    const ep = await request(`${api}/v1/webhook-endpoints`, { method: 'POST', headers: auth, body: { url: `http://127.0.0.1:${receiver.port}${hookPath}`, events: [] } });
    if (ep.status !== 201) throw new Error(`webhook endpoint: ${ep.status} ${JSON.stringify(ep.body)}`);
    receiver.secrets.set(hookPath, ep.body.secret);
    endpoints[i] = { accountId, path: hookPath, createdAt: ep.body.webhookEndpoint.createdAt };
    const topup = await request(`${api}/v1/topups`, { method: 'POST', headers: auth, body: { amountCents: 100_000_000 } });
    if (topup.status !== 201) throw new Error(`top-up: ${topup.status} ${JSON.stringify(topup.body)}`);
    merchants[i] = { accountId, key };
  };
  // Each CLI call boots Node and the app's modules: three at a time.
  let next = 0;
  await Promise.all([0, 1, 2].map(async () => {
    while (next < SETTINGS.merchants) await one(next++);
  }));
  return { merchants, endpoints };
}

const STABLE_MS = 10_000;

/** Waits until requests succeed again and the work from before `restoredAt` is done, within the bound. */
async function settle(db, workload, phase) {
  const deadline = phase.restoredAt + SETTINGS.settleBoundMs;
  let drainedAt = null;
  while (Date.now() < deadline) {
    const now = Date.now();
    const lastFail = lastTroubleEnd(workload.recorder, phase.faultAt, now);
    // An attempt still waiting past SLOW_MS may yet fail: not recovered while one does.
    const oldest = workload.recorder.oldestInflight();
    // Requests must stay fine for STABLE_MS: a client stack reconnecting with back-off can start to hang
    // a few seconds after the store came back.
    const requestsOk = (oldest === null || now - oldest < SLOW_MS) && now - (lastFail ?? phase.restoredAt) >= STABLE_MS;
    if (drainedAt === null && backlogTotal(await backlogBefore(db, phase.restoredAt, phase.since)) === 0) drainedAt = Date.now();
    if (requestsOk && drainedAt !== null) {
      phase.drainedAt = drainedAt;
      return Math.max(lastFail ?? phase.restoredAt, drainedAt) - phase.restoredAt;
    }
    await sleep(500);
  }
  phase.backlogAtBound = await backlogBefore(db, phase.restoredAt, phase.since);
  return null;
}

async function main() {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const receiver = new WebhookReceiver(SETTINGS.receiverFailRate);
  await receiver.start();
  cluster = new Cluster({ keep: flag('keep') });
  await cluster.start({ smtpUrl });
  const db = new Db(cluster.pg.url);
  const apis = cluster.apis.map((a) => a.base);

  log(`seeding ${SETTINGS.merchants} merchants (CLI, webhook endpoint, top-up)`);
  const { merchants, endpoints } = await seed(cluster, receiver, apis[0]);
  const catalog = await loadCatalog(apis[0], merchants[0]);
  const workload = new Workload({ apis, merchants, catalog, users: SETTINGS.users, rate: SETTINGS.rate });
  const ctx = { cluster, receiver };
  workload.start();
  log(`workload: ${SETTINGS.users} clients, ${SETTINGS.rate} operations/s; baseline ${SETTINGS.baselineMs / 1000} s`);

  const phases = [];
  const baselineFrom = Date.now();
  await sleep(SETTINGS.baselineMs);
  phases.push({ name: 'baseline', title: 'none (baseline)', from: baselineFrom, to: Date.now(), violations: await snapshotChecks(db) });

  for (const fault of SETTINGS.faults) {
    const phase = { name: fault.name, title: fault.title, from: Date.now(), recoveryBoundMs: SETTINGS.settleBoundMs };
    phase.faultAt = Date.now();
    // The work this fault can have hit: what was created from shortly before it on. Anything older
    // that an earlier fault left stuck counts against that fault, and in the final audit.
    phase.since = phase.faultAt - 30_000;
    await inject(fault, ctx);
    await sleep(fault.downMs);
    await fault.restore(ctx);
    phase.restoredAt = Date.now();
    log(`restored after ${((phase.restoredAt - phase.faultAt) / 1000).toFixed(1)} s; settling`);
    phase.recoveryMs = await settle(db, workload, phase);
    phase.violations = await snapshotChecks(db);
    phase.to = Date.now();
    log(`${fault.title}: recovery ${phase.recoveryMs === null ? 'not within the bound' : `${(phase.recoveryMs / 1000).toFixed(1)} s`}, ${phase.violations.length} violation(s)`);
    phases.push(phase);
  }

  log('stopping the workload; final settle');
  await workload.stop();
  const finalFrom = Date.now();
  // The workers keep creating events after the workload stops (a card issued, an e-mail sent), and a delivery
  // of one that the receiver refused on purpose lands only after its back-off: the audit waits for all of it,
  // not only for the work from before the stop (a delivery created after it was once still PENDING at the audit).
  const drained = await waitDrained(db, 'now', SETTINGS.finalSettleMs);
  // Deliveries refused on purpose retry after a second or more; anything created since the last look, too.
  await sleep(3_000);
  if (drained.at !== null) {
    const late = await waitDrained(db, 'now', SETTINGS.finalSettleMs);
    if (late.at === null) Object.assign(drained, late);
  }
  log(drained.at ? `settled in ${((drained.at - finalFrom) / 1000).toFixed(1)} s` : `not settled in ${SETTINGS.finalSettleMs / 1000} s: ${JSON.stringify(drained.backlog)}`);
  const final = await finalChecks(db, { knowledge: workload.knowledge, receiver, sink, endpoints });
  const snapshot = await snapshotChecks(db);
  const finalViolations = [...snapshot, ...final.violations];
  if (backlogTotal(drained.backlog) !== 0 && drained.at === null) finalViolations.push(`backlog not drained in ${SETTINGS.finalSettleMs / 1000} s`);
  phases.push({ name: 'final', title: 'final audit (settled)', from: finalFrom, to: Date.now(), violations: finalViolations });
  await db.end();
  const guardRecord = cluster.guardRecord();
  await cleanup();
  await sink.stop();
  await receiver.stop();

  // Attempts that were still in flight when a phase settled are all recorded now: take them into account.
  for (const p of phases.filter((p) => p.recoveryMs !== undefined && p.recoveryMs !== null)) {
    const lastFail = lastTroubleEnd(workload.recorder, p.faultAt, p.to);
    p.recoveryMs = Math.max(lastFail ?? p.restoredAt, p.drainedAt) - p.restoredAt;
  }
  const rows = phases.map((p) => phaseRow(workload.recorder, p));
  const findings = phases.filter((p) => p.faultAt).flatMap((p) => observations(workload.recorder, p, cluster.crashes).map((f) => `${p.title}: ${f}`));
  const out = [];
  out.push('', table(rows), '');
  const f = final.facts;
  out.push(
    `rewards ${f.rewards} (${f.confirmedRewards} confirmed to clients, ${f.unconfirmedKeys} keys never answered), cards ${f.cards}, events ${f.events}, ` +
      `event deliveries ${f.eventDeliveries} (duplicate rate ${(f.duplicateRate * 100).toFixed(2)} %, ${f.receiverRefusedOnPurpose} refused on purpose), ` +
      `e-mail jobs ${f.mailJobs}, e-mails received ${f.emailsReceived}`,
  );
  const violations = phases.flatMap((p) => p.violations.map((v) => `${p.title}: ${v}`));
  const guarded = guardRecord.filter((e) => e.kind === 'spawned' && e.main).length;
  const refused = [...guardRecord.filter((e) => e.kind === 'refused'), ...guardState.refusals];
  out.push('', `outbound-connection guard: active in the runner and ${guarded} spawned processes, ${refused.length} refused connections`);
  if (guarded === 0) violations.push('outbound-connection guard: it did not run in the spawned processes');
  for (const r of refused) violations.push(`outbound-connection guard refused ${r.what} (pid ${r.pid})`);
  out.push('', violations.length === 0 ? 'invariants: all held' : `INVARIANTS VIOLATED (${violations.length}):\n  ${violations.join('\n  ')}`);
  out.push('', findings.length === 0 ? 'availability: every criterion met' : `availability findings${flag('strict') ? ' (--strict: failing)' : ' (reported; --strict fails on them)'}:\n  ${findings.join('\n  ')}`, '');
  process.stdout.write(out.join('\n'));
  return violations.length > 0 || (flag('strict') && findings.length > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    log(`chaos run failed: ${error.stack || error.message}`);
    await cleanup().catch(() => {});
    process.exit(2);
  },
);
