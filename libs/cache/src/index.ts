export * from './cache.js';
export * from './redis-cache.js';
export * from './memory-cache.js';
