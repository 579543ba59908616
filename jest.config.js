// Tests run on the TypeScript sources (SWC strips types, keeps ESM); `npm run typecheck` checks types.
// Two projects (docs/architecture.md, "Tests"): `unit` holds the *.unit.test.ts files, which need no
// PostgreSQL, Redis or RabbitMQ and no child process (`npm run test:unit`, seconds); `integration`
// holds every other test, against the real servers. `npm test` runs both.
import { jestModuleNameMapper } from './scripts/package-graph.mjs';

/** @type {import('jest').Config} */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/gateway', '<rootDir>/launcher', '<rootDir>/test'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // Derived from the workspaces' package.json files, like the tsconfig references (scripts/package-graph.mjs).
  moduleNameMapper: jestModuleNameMapper(),
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};

/** @type {import('jest').Config} */
export default {
  // A global option: jest ignores it inside a project.
  // Two test files run at once on this project's two-core machines, beside PostgreSQL, Redis and
  // RabbitMQ: PGlite's migrations took 30 s in such a run. A test that hangs fails a little later.
  testTimeout: 60000,
  // Test files run in worker processes, each replaced once it holds more than this after a file:
  // one process running all ~260 files in a row grew until V8 aborted it (CI exit 134).
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['**/test/**/*.unit.test.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['**/test/**/*.test.ts'], testPathIgnorePatterns: ['\\.unit\\.test\\.ts$'] },
  ],
};
