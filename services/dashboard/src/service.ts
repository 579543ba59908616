import { createClientAddressResolver, listen, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createDashboardHandler } from './app.js';
import { loadIcon, loadStylesheet } from './assets.js';
import type { DashboardConfig } from './config.js';
import { createAccountApi } from './gateway-client/account-api.js';
import { createGatewayClient } from './gateway-client/gateway-client.js';
import { createSessionCookies } from './session/session-cookies.js';

export interface DashboardService {
  server: RunningServer;
  close(): Promise<void>;
}

/** Starts the dashboard: an HTTP server whose only dependency is the public gateway. */
export async function startDashboard(config: DashboardConfig, logger: Logger): Promise<DashboardService> {
  const gateway = createGatewayClient({
    gatewayUrl: config.GATEWAY_URL,
    apiKey: config.DASHBOARD_API_KEY,
    apiSecret: config.DASHBOARD_API_SECRET,
  });
  try {
    const handler = createDashboardHandler({
      logger,
      api: createAccountApi(gateway),
      gateway,
      cookies: createSessionCookies(config.SESSION_SECRET, config.COOKIE_SECURE),
      cookieSecure: config.COOKIE_SECURE,
      stylesheet: await loadStylesheet(),
      icon: await loadIcon(),
      clientAddress: createClientAddressResolver(config.TRUSTED_PROXIES),
      publicGatewayUrl: config.PUBLIC_GATEWAY_URL ?? new URL(config.GATEWAY_URL).origin,
      maxKeyLifetimeDays: config.KEY_MAX_LIFETIME_DAYS ?? null,
      devMailboxFile: config.DEV_MAILBOX_FILE ?? null,
    });
    const server = await listen(handler, config.PORT, config.HOST);
    // The key id is public (it is in every request's header); the secret never reaches a log line.
    logger.info(
      {
        url: server.url,
        gateway: new URL(config.GATEWAY_URL).origin,
        apiKey: config.DASHBOARD_API_KEY,
        secureCookies: config.COOKIE_SECURE,
      },
      'dashboard listening',
    );
    return {
      server,
      close: async () => {
        await server.close();
        await gateway.close();
      },
    };
  } catch (err) {
    await gateway.close().catch(() => {});
    throw err;
  }
}
