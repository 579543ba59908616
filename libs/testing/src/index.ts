export * from './environment.js';
export * from './database.js';
export * from './signed-fetch.js';
export * from './redis-keys.js';
export * from './cli-runner.js';
export * from './logs.js';
export * from './ports.js';
export * from './fault-proxy.js';
