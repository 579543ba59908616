export * from './cache.js';
export * from './redis-cache.js';
export * from './memory-cache.js';
export * from './write-through.js';
export { scriptOf } from './redis-scripts.js';
export { RespError, type RespReply } from './resp-reader.js';
export { parseVersioned } from './versioned-entry.js';
export { redisAttributes } from './traced-command.js';
