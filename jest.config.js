/** @type {import('jest').Config} */
const swaggerPlugin = { path: '<rootDir>/test/support/swagger-plugin-transformer.js' };

module.exports = {
  rootDir: '.',
  // Node's environment plus the outbound-connection guard: tests never leave the machine (docs/operations.md).
  testEnvironment: '<rootDir>/test/support/hermetic-environment.js',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/bench/**/*.spec.js'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', astTransformers: { before: [swaggerPlugin] } }],
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
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
