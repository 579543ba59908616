export * from './app-error.js';
export * from './error-body.js';
export * from './spec-errors.js';
export * from './factories.js';
export * from './dependency-unavailable.js';
export * from './invalid-stored-value.js';
export * from './session-ended.js';
