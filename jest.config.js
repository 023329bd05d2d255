/** @type {import('jest').Config} */

module.exports = {
  rootDir: '.',
  // Node's environment plus the outbound-connection guard: tests never leave the machine (docs/operations.md).
  testEnvironment: '<rootDir>/test/support/hermetic-environment.js',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/bench/**/*.spec.js'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    // Each file on its own, without a type checker (tsconfig.test.json: isolatedModules): `npm run typecheck`
    // checks the types; the OpenAPI plugin's metadata comes from the global setup (test/support/swagger-metadata.ts).
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
    // oauth4webapi (the strict OAuth client of the OAuth tests) is ESM-only: compiled to CommonJS
    // for Jest on Node 20 (DEPENDENCIES.md trap 2).
    // otplib's base32 and HMAC (@scure/base, @noble/hashes; two-factor sign-in) are ESM-only too.
    '/(oauth4webapi/build/index|@scure/base/index|@noble/hashes/.*)\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(.*/node_modules/)?(oauth4webapi|@scure/base|@noble/hashes)/)'],
  moduleNameMapper: {
    '^@app/([^/]+)$': '<rootDir>/libs/$1/src',
    '^@app/([^/]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/swagger-metadata-setup.ts'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
