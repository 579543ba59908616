export * from './parse-config.js';
export * from './fields.js';
export * from './base-fields.js';
export * from './service-database.js';
export * from './redis-target.js';
