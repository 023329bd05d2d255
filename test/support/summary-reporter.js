// Ends every `npm test` with one plain line, "N passed, N failed" (", N skipped" when any), which
// CI tooling that does not know Jest's own summary can read. Written at exit, after Jest's summary,
// so it is the last line (stderr and stdout writes are synchronous for files and pipes on Linux).
// Just before it, the outbound-connection guard's account, counted from the guard's own record
// (test/support/outbound-guard.js; docs/operations.md, "Tests are hermetic"): in how many test files
// it was active and how many connections it refused. A test file that ran unguarded, or any refused
// connection (also one no test failed for, e.g. made while an app closed), fails the run.
'use strict';

const { readRecord, RECORD_ENV } = require('./outbound-guard');

function guardAccount(results) {
  const record = process.env[RECORD_ENV];
  const entries = readRecord(record);
  const active = new Set(entries.filter((e) => e.kind === 'active').map((e) => e.owner));
  const spawned = entries.filter((e) => e.kind === 'spawned' && e.main).length;
  const refused = entries.filter((e) => e.kind === 'refused' && !e.expected);
  // Provoked on purpose by the guard's own test (test/foundation/outbound-guard.e2e-spec.ts).
  const drilled = entries.filter((e) => e.kind === 'refused' && e.expected).length;
  const files = results.testResults.map((r) => r.testFilePath);
  const unguarded = files.filter((f) => !active.has(f));
  const lines = [];
  if (!record || unguarded.length > 0) {
    lines.push(`outbound-connection guard: NOT active in ${unguarded.length} of ${files.length} test files${record ? '' : ` (no ${RECORD_ENV}: did the global setup run?)`}`);
    for (const f of unguarded.slice(0, 10)) lines.push(`  - ${f}`);
  } else {
    lines.push(
      `outbound-connection guard: active in ${active.size} test files${spawned ? ` and ${spawned} spawned processes` : ''}, ${refused.length} refused connections` +
        (drilled ? ` (and ${drilled} provoked by the guard's own test)` : ''),
    );
  }
  for (const r of refused) lines.push(`  refused: ${r.what} (${r.owner ?? 'no test file'}, pid ${r.pid})`);
  return { lines, ok: !!record && unguarded.length === 0 && refused.length === 0 };
}

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    const guard = guardAccount(results);
    process.once('exit', () => {
      if (!guard.ok) process.exitCode = 1;
      process.stderr.write(`\n${guard.lines.join('\n')}\n${line}\n`);
    });
  }
}

module.exports = SummaryReporter;
