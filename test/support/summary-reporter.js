// Ends every `npm test` with one plain line, "N passed, N failed" (", N skipped" when any), which
// CI tooling that does not know Jest's own summary can read. Written at exit, after Jest's summary,
// so it is the last line (stderr and stdout writes are synchronous for files and pipes on Linux).
'use strict';

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.once('exit', () => process.stderr.write(`\n${line}\n`));
  }
}

module.exports = SummaryReporter;
