/**
 * `npm run test:unit`: the pure unit specs (libs/**\/*.spec.ts, bench/**\/*.spec.js) with no global
 * setup, so they run with PostgreSQL and Redis stopped (docs/testing.md, "Unit specs"). A spec that
 * needs either store is an e2e spec under test/ instead. `npm test` runs these too, with the rest.
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/bench/**/*.spec.js'],
  globalSetup: undefined,
  globalTeardown: undefined,
  // No app is built here: no OpenAPI plugin metadata to load (test/support/swagger-metadata.ts).
  setupFilesAfterEnv: [],
  // The summary reporter checks the outbound-connection guard's record, which the global setup creates.
  reporters: ['default'],
};
