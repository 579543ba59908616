export * from './usage-error.js';
export * from './run-cli.js';
export * from './open-cli-store.js';
export { serveSystemSocket } from './system-socket/server.js';
export * from './store-help.js';
