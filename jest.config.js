// Four tiers (STYLE.md): pure unit tests; medium tests, each use case against
// the real PostgreSQL (and Redis) with no broker (own database); integration
// tests against the real PostgreSQL, Redis and RabbitMQ of this machine (own
// test database, Redis prefix and RabbitMQ vhost); end-to-end tests over HTTP
// against the built apps. Beside the unit tier, the tools tier (test/tools,
// *.tool-spec.ts; npm test runs it right after the unit tier) holds the offline
// checks that start a program: promtool, Redocly, Spectral, the client
// generator, the Kubernetes schema validator in a child node, the retention
// loop under /bin/sh. Kept apart, the unit tier stays under a minute. A fifth,
// deploy (npm run test:deploy, test/deploy/run.sh), builds and runs
// docker-compose.yml on a Docker engine.
const moduleNameMapper = {
  '^@lr/([a-z-]+)$': '<rootDir>/libs/$1/src',
  '^@lead-router/client$': '<rootDir>/packages/client/src',
};
const transform = { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }] };
const common = { rootDir: __dirname, moduleFileExtensions: ['ts', 'js', 'json'], testEnvironment: 'node', transform, moduleNameMapper };
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,packages}/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'] },
    { ...common, displayName: 'tools', testMatch: ['<rootDir>/test/tools/**/*.tool-spec.ts'] },
    {
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/apps/**/*.medium-spec.ts', '<rootDir>/libs/**/*.medium-spec.ts'],
      globalSetup: '<rootDir>/test/support/medium-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeouts.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeouts.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/timeouts.ts'],
    },
    { ...common, displayName: 'deploy', testMatch: ['<rootDir>/test/deploy/**/*.deploy-spec.ts'] },
  ],
};
