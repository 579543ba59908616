import type { LauncherConfig } from './config.js';
import type { RunningSystem } from './system.js';

/**
 * Written to the terminal, not the log: the generated secret is shown this once and must never
 * reach a log collector.
 */
export function printBanner(config: LauncherConfig, system: RunningSystem, readySeconds: number): void {
  const mode = [
    config.DATABASE_URL ? 'PostgreSQL' : `embedded PostgreSQL (PGlite) in ${config.DATA_DIR}`,
    config.REDIS_URL ? 'Redis' : config.REDIS_CLUSTER_NODES ? 'Redis Cluster' : 'in-process cache',
  ].join(', ');
  const lines = [
    '',
    `Audio catalog platform is running at ${system.gatewayUrl}  (${mode}; ready in ${readySeconds.toFixed(1)} s)`,
    `  OpenAPI: ${system.gatewayUrl}/openapi.json   Ready: ${system.gatewayUrl}/readyz`,
  ];
  lines.push(`  Account dashboard: ${system.dashboardUrl}  (register, sign in, API keys, subscriptions, devices)`);
  const metrics = system.gateway.metricsServer;
  if (metrics) lines.push(`  Metrics: ${metrics.url}/metrics  (Prometheus, the gateway's own listener)`);
  const generated = system.generatedSystemKey;
  if (generated) {
    lines.push(
      '',
      'First start: a system:full-access API key was created. The secret is shown only now; store it.',
      `  X-Api-Key:    ${generated.key}`,
      `  X-Api-Secret: ${generated.secret}`,
      '',
      'Try it:',
      `  curl -s '${system.gatewayUrl}/api/Dac?brand=Topping&pageSize=5' -H 'X-Api-Key: ${generated.key}' -H 'X-Api-Secret: ${generated.secret}'`,
      '',
      'Make narrower keys with: npm run keys -- create --scopes "read:devices" --name "my app" (in another terminal, while this runs)',
    );
  } else if (system.seedKey) {
    lines.push(`  Seed key ${system.seedKey.key} is active with scopes: ${system.seedKey.scopes}`);
  } else {
    lines.push('  Use the system key printed at the first start, or make one with npm run keys -- create --scopes "...".');
  }
  lines.push('Press Ctrl-C to stop.', '');
  process.stdout.write(`${lines.join('\n')}\n`);
}
