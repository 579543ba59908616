// Harnesses that start real services for tests of more than one package (docs/architecture.md,
// "Tests"): identity alone (identity's tests, billing's cross-service tests) and the whole system
// through the launcher (the end-to-end tests, the dashboard's tests). libs/testing holds the
// helpers that need no service; it sits below the services and cannot start one.
export * from './identity-harness.js';
export * from './system-harness.js';
export * from './actors.js';
