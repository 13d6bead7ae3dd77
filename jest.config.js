/** Unit, conformance and end-to-end tests; e2e suites start real servers on ephemeral ports. */
module.exports = {
  // Node's environment, failing a suite that leaves a process, a server or a long timer running (see the file).
  testEnvironment: '<rootDir>/test/support/no-leftovers-environment.ts',
  // Should jest not exit after the last suite, prints what holds it open.
  globalTeardown: '<rootDir>/test/support/exit-watch.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Sources first: a plugin built in place (plugins/*/index.js) must not shadow its .ts under test.
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'node'],
  // Plugins import the public API by its package name; under test it is the source.
  moduleNameMapper: { '^rpc-gateway/plugin-api$': '<rootDir>/src/plugins/api.ts' },
  // Some clients' dependencies (@noble, @scure) and NestJS 12 ship ESM only; compile those to CommonJS too.
  transformIgnorePatterns: ['/node_modules/(?!(@noble|@scure|@nestjs)/)'],
  transform: {
    '^.+\\.(ts|js|mjs)$': ['@swc/jest', {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
    }],
  },
  testTimeout: 30000,
};
