export { launcherConfigSchema, type LauncherConfig } from './config.js';
export { startSystem, type RunningSystem } from './system.js';
