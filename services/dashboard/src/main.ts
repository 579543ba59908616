import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { runStandalone } from '@acs/http';
import { dashboardConfigSchema } from './config.js';
import { startDashboard } from './service.js';

// Standalone entry (containers): `node services/dashboard/dist/main.js`. Needs GATEWAY_URL,
// DASHBOARD_API_KEY / DASHBOARD_API_SECRET (a system:full-access key) and SESSION_SECRET.
const config = loadConfigOrExit('dashboard', dashboardConfigSchema);
const logger = createLogger({ name: 'dashboard', level: config.LOG_LEVEL });
if (!config.COOKIE_SECURE)
  logger.warn('COOKIE_SECURE is false: session cookies also travel over plain HTTP. Use this only on a development machine.');
await runStandalone(logger, 'dashboard', 'dashboard', () => startDashboard(config, logger));
