export * from './scopes.js';
export * from './api-key-format.js';
export * from './secret-hash.js';
export * from './internal-context.js';
export * from './api-secret-format.js';
