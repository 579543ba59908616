// What the embedded launcher and the tests use; the standalone entry is main.ts.
export { dashboardConfigSchema, type DashboardConfig } from './config.js';
export { startDashboard, type DashboardService } from './service.js';
