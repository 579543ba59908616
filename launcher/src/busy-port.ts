import { createServer } from 'node:net';
import type { LauncherConfig } from './config.js';

/**
 * A listener of `npm start` that could not bind because the port is taken: which variable moves
 * it. node's EADDRINUSE error carries the port; each public listener has its own variable.
 */
export function busyPortAdvice(err: unknown, config: Pick<LauncherConfig, 'PORT' | 'DASHBOARD_PORT' | 'METRICS_PORT'>): string | undefined {
  const { code, port } = (err ?? {}) as { code?: unknown; port?: unknown };
  if (code !== 'EADDRINUSE') return undefined;
  const listeners: [string, number | null, string][] = [
    ['PORT', config.PORT, 'the gateway'],
    ['DASHBOARD_PORT', config.DASHBOARD_PORT, 'the account dashboard'],
    ['METRICS_PORT', config.METRICS_PORT, "the gateway's metrics listener"],
  ];
  const match = listeners.find(([, value]) => value !== null && value === port);
  if (!match) return `Port ${String(port)} is already in use by another program.`;
  const [variable, value, what] = match;
  return `Port ${value} (${what}) is already in use by another program: stop it, or start on another port with ${variable}=<port> (0 picks a free one), e.g. ${variable}=${Number(value) + 1} npm start`;
}

/** Binds and frees each fixed public port first, so a taken one is said in a second, not after every service started. */
export async function assertPublicPortsFree(
  config: Pick<LauncherConfig, 'HOST' | 'PORT' | 'DASHBOARD_PORT' | 'METRICS_PORT'>,
): Promise<void> {
  for (const port of [config.PORT, config.DASHBOARD_PORT, config.METRICS_PORT]) {
    if (port === null || port === 0) continue;
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(port, config.HOST, () => probe.close(() => resolve()));
    });
  }
}
