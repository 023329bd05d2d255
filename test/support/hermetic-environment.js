'use strict';
// The Jest environment of every test file: Node's, with the outbound-connection guard
// (test/support/outbound-guard.js; docs/operations.md, "Tests are hermetic") installed in the Jest
// worker before the file runs. A connection the guard refused fails the test during which it was
// made; one made in a hook, or by a process the file spawned, fails the file at its end. Either way
// the failure names the address, even when the code that tried swallowed the error.
const { TestEnvironment } = require('jest-environment-node');
const guard = require('./outbound-guard');

class HermeticEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    // Spawned processes record for this file (test/support/processes.ts passes it on).
    this.global.process.env[guard.OWNER_ENV] = this.testPath;
  }

  async setup() {
    await super.setup();
    const state = guard.install();
    state.owner = this.testPath;
    state.inJest = true;
    guard.takeRefusals(this.testPath); // a file run again in watch mode starts clean
    guard.note({ kind: 'active', owner: this.testPath });
  }

  handleTestEvent(event, state) {
    if (event.name === 'test_done') {
      const refused = guard.takeRefusals(this.testPath);
      if (refused.length) event.test.errors.push(guard.failure(refused));
    } else if (event.name === 'run_finish') {
      const refused = guard.takeRefusals(this.testPath);
      if (refused.length) state.unhandledErrors.push(guard.failure(refused));
    }
  }
}

module.exports = HermeticEnvironment;
