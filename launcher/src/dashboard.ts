import type { Logger } from '@acs/logger';
import type { KeysDeps } from '@acs/keys-service';
import { devMailboxFile } from '@acs/identity-service';
import { startDashboard, type DashboardService } from '@acs/dashboard-service';
import type { LauncherConfig } from './config.js';
import { ensureDashboardKey, loadOrCreateSessionSecret } from './dashboard-credentials.js';
import { embeddedConfig } from './embedded-configs.js';

/**
 * The account dashboard as `npm start` runs it: its own HTTP server on HOST:DASHBOARD_PORT,
 * a client of the gateway like any other, with its own system:full-access key. Plain HTTP on
 * this machine, so its cookies cannot be Secure (browsers drop Secure cookies over http://).
 */
export async function startEmbeddedDashboard(
  config: LauncherConfig,
  keysDeps: KeysDeps,
  gatewayUrl: string,
  logger: Logger,
): Promise<DashboardService> {
  const credentials = await ensureDashboardKey(keysDeps, config.DATA_DIR);
  const sessionSecret = config.SESSION_SECRET ?? (await loadOrCreateSessionSecret(config.DATA_DIR));
  return startDashboard(
    embeddedConfig('dashboard', config.env, {
      HOST: config.HOST,
      PORT: String(config.DASHBOARD_PORT),
      LOG_LEVEL: config.LOG_LEVEL,
      GATEWAY_URL: gatewayUrl,
      DASHBOARD_API_KEY: credentials.key,
      DASHBOARD_API_SECRET: credentials.secret,
      SESSION_SECRET: sessionSecret,
      COOKIE_SECURE: 'false',
      // No SMTP server: identity keeps mail in its dev mailbox, which the dashboard shows to this machine.
      DEV_MAILBOX_FILE: config.env.SMTP_URL ? undefined : devMailboxFile(config.DATA_DIR),
    }),
    logger,
  );
}
