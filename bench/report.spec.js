'use strict';
// The report's rows for the phases added after the last full run (scheduled drain, report, replay) and its
// checkpoint/WAL columns: built from the last committed full results with those phases' results added.
const { describe, expect, it } = require('@jest/globals');
const path = require('node:path');
const fs = require('node:fs');
const { buildFigures, markdown } = require('./report');

const FULL_RUN = path.join(__dirname, 'results', '20261123t060859.json');

function resultsWith(phases) {
  const results = JSON.parse(fs.readFileSync(FULL_RUN, 'utf8'));
  results.figures = [];
  Object.assign(results.phases, phases);
  buildFigures(results);
  return results;
}

const sends = (n, p50, p99, errors = 0) => ({ n, p50, p99, max: p99 * 2, mean: p50, errors });

const scheduled = (over) => ({
  scheduledRewards: 100000,
  sent: 100000,
  mailJobs: 100000,
  drainS: 48.7,
  firstSendAfterDueS: 0.25,
  dueToAllSentS: 49.3,
  sentPerS: 2053,
  sendRate: 68,
  createsBefore: sends(3592, 6.2, 57.3),
  createsDuring: sends(3285, 23, 169.4),
  ...over,
});

const row = (results, start) => results.figures.find((x) => x.figure.startsWith(start));

describe('bench report rows', () => {
  it('judges the scheduled drain by its minute and by the sends p99 ratio, and leaves the spread analysis run unjudged', () => {
    const met = resultsWith({ scheduled_drain_100000: scheduled({ createsDuring: sends(3285, 9, 80) }) });
    expect(row(met, 'scheduled sends: 100,000 due at once')).toMatchObject({ value: 49.3, target: '≤ 60 s', met: true, errors: 0 });
    expect(row(met, 'send p99 during the scheduled drain')).toMatchObject({ value: 1.4, p99: 80, target: '≤ 1.5×', met: true });

    const slow = resultsWith({ scheduled_drain_100000: scheduled({ dueToAllSentS: 61.2, sent: 99990 }) });
    expect(row(slow, 'scheduled sends')).toMatchObject({ met: false, errors: 10 });
    expect(row(slow, 'send p99 during the scheduled drain')).toMatchObject({ value: 2.96, met: false });

    const spread = resultsWith({ scheduled_drain_100000: scheduled({ sendsSpreadOver: 10 }) });
    const analysis = row(spread, 'send p99 during the scheduled drain');
    expect(analysis.figure).toContain('10 other merchants');
    expect(analysis.target).toBeUndefined();
    expect(markdown(spread, 'x.json')).toContain(`| ${analysis.figure} | 2.96 × |`);
  });

  it('holds a report on the replica to 1.2× and one on the primary to 1.5×, with its minute and memory', () => {
    const report = (over) => ({
      rows: 1000000,
      buildS: 41.5,
      rowsPerS: 24096,
      csvMb: 180.2,
      rssBeforeMb: 300,
      rssMaxMb: 370,
      rssGrowthMb: 70,
      sendRate: 50,
      sendsWithout: sends(3000, 5, 40),
      sendsDuring: sends(2000, 6, 54),
      ...over,
    });
    const primary = resultsWith({ report_rewards: report() });
    expect(row(primary, 'rewards report of 1,000,000 rewards')).toMatchObject({ value: 41.5, met: true });
    expect(row(primary, 'send p99 during the report')).toMatchObject({ value: 1.35, target: '≤ 1.5×', met: true });

    const replica = resultsWith({ report_rewards: report({ replicaRowsRead: 1000123, rssGrowthMb: 120 }) });
    expect(row(replica, 'rewards report').figure).toContain('read from the replica');
    expect(row(replica, 'rewards report')).toMatchObject({ met: false });
    expect(row(replica, 'send p99 during the report')).toMatchObject({ value: 1.35, target: '≤ 1.2×', met: false });
  });

  it('fails the replay row when the replay did not arrive whole, whatever the live lag', () => {
    const replay = (over) => ({
      replay_live_baseline: { liveCreatesPerS: 20, liveLagMs: { p50: 17, p99: 42 } },
      replay_live_during_replay: {
        liveCreatesPerS: 20,
        liveLagMs: { p50: 11, p99: 80 },
        replay: { eventCount: 100002, delivered: 100002, duplicates: 0, complete: true, wholeReplayS: 206.5, ...over },
      },
    });
    expect(row(resultsWith(replay()), 'live webhook lag during a replay')).toMatchObject({ value: 80, errors: 0, met: true });
    expect(row(resultsWith(replay({ delivered: 99000, complete: false })), 'live webhook lag')).toMatchObject({ errors: 1002, met: false });
    // 1,000 duplicates do not make up for 1,000 events that never arrived.
    expect(row(resultsWith(replay({ delivered: 100002, duplicates: 1000, complete: true })), 'live webhook lag')).toMatchObject({ errors: 2000, met: false });
  });

  it("shows each phase's checkpoints and WAL, and the server's settings, and leaves the cells empty for older results", () => {
    const results = resultsWith({});
    const [name, olderName] = Object.keys(results.phases).filter((k) => results.phases[k].cpu);
    results.phases[name].wal = { checkpointsTimed: 0, checkpointsRequested: 2, walMb: 880.8 };
    results.machine.postgresSettings = { max_wal_size: '1GB', checkpoint_timeout: '5min' };
    const md = markdown(results, 'x.json');
    expect(md).toContain('`max_wal_size=1GB`, `checkpoint_timeout=5min`');
    const line = md.split('\n').find((l) => l.startsWith(`| ${name} |`));
    expect(line).toMatch(/\| 0 \/ 2 \| 880\.8 \|$/);
    const older = md.split('\n').find((l) => l.startsWith(`| ${olderName} |`));
    expect(older).toMatch(/\|\s+\|\s+\|$/);
  });
});
