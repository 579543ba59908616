export * from './cache.js';
export * from './redis-cache.js';
export * from './memory-cache.js';
export * from './write-through.js';
