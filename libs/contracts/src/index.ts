export * from './catalog.js';
export * from './catalog-query.js';
export * from './api-key-cache.js';
export * from './identity.js';
export * from './authz.js';
export * from './jwt.js';
export * from './api-keys.js';
export * from './catalog-internal.js';
