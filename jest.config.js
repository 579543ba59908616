// Tests run on the TypeScript sources (SWC strips types, keeps ESM); `npm run typecheck` checks types.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/gateway', '<rootDir>/launcher', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: {
    '^@acs/(config|errors|http|logger|metrics|tracing|db|cache|bus|cli|auth|contracts|testing)$': '<rootDir>/libs/$1/src/index.ts',
    '^@acs/identity-service$': '<rootDir>/services/identity/src/index.ts',
    '^@acs/device-service$': '<rootDir>/services/device/src/index.ts',
    '^@acs/dashboard-service$': '<rootDir>/services/dashboard/src/index.ts',
    '^@acs/billing-service$': '<rootDir>/services/billing/src/index.ts',
    '^@acs/keys-service$': '<rootDir>/services/keys/src/index.ts',
    '^@acs/catalog-service$': '<rootDir>/services/catalog/src/index.ts',
    '^@acs/gateway$': '<rootDir>/gateway/src/index.ts',
    '^@acs/launcher$': '<rootDir>/launcher/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 30000,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
