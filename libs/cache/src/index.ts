export * from './cache.js';
export * from './redis-cache.js';
export * from './redis-cluster-cache.js';
export * from './shared-cache.js';
export * from './memory-cache.js';
export * from './write-through.js';
export { scriptOf } from './redis-scripts.js';
export { RespError, type RespReply } from './resp-reader.js';
// The lean per-request connection (the gateway's reads go through it); the bench's floor proxy uses it as well.
export { MgetConnection } from './mget-connection.js';
export { parseVersioned } from './versioned-entry.js';
export { redisAttributes } from './traced-command.js';
export { cacheReadinessCheck } from './readiness.js';
