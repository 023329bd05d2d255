'use strict';
// The Jest environment of every test file: Node's, with the outbound-connection guard
// (test/support/outbound-guard.js; docs/operations.md, "Tests are hermetic") installed in the Jest
// worker before the file runs. A connection the guard refused fails the test during which it was
// made; one made in a hook, or by a process the file spawned, fails the file at its end. Either way
// the failure names the address, even when the code that tried swallowed the error.
// It also gives each e2e file a database of its own, copied from the run's migrated one
// (test/support/file-database.js; docs/testing.md, "A database per test file").
const { TestEnvironment } = require('jest-environment-node');
const guard = require('./outbound-guard');
const fileDatabase = require('./file-database');

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
    // Unit specs (libs/**/*.spec.ts) touch no database; `npm run test:unit` has no template at all.
    // Left for the global teardown to drop: a DROP DATABASE forces a checkpoint of the whole cluster,
    // which costs every other file's writes while the run goes on.
    if (this.testPath.endsWith('.e2e-spec.ts') && process.env[fileDatabase.TEMPLATE_ENV]) {
      this.global.process.env.DATABASE_URL = await fileDatabase.copyTemplate(this.testPath);
    }
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
