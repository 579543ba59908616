export * from './parse-config.js';
export * from './fields.js';
