import type { z } from 'zod';
import { configProblems, parseConfig, withoutEmptyValues, type ConfigProblem, type Env } from '@acs/config';
import { billingConfigSchema } from '@acs/billing-service';
import { catalogConfigSchema } from '@acs/catalog-service';
import { dashboardConfigSchema } from '@acs/dashboard-service';
import { deviceConfigSchema } from '@acs/device-service';
import { gatewayConfigSchema } from '@acs/gateway';
import { identityConfigSchema } from '@acs/identity-service';
import { keysConfigSchema } from '@acs/keys-service';
import { webhooksConfigSchema } from '@acs/webhooks-service';

// Each process of `npm start` reads the environment through its own schema, so a variable a
// service learns works here without a second edit. The launcher sets only what wires the system
// together, listed per process below; those values win over the environment.

const SCHEMAS = {
  keys: keysConfigSchema,
  identity: identityConfigSchema,
  catalog: catalogConfigSchema,
  device: deviceConfigSchema,
  billing: billingConfigSchema,
  webhooks: webhooksConfigSchema,
  gateway: gatewayConfigSchema,
  dashboard: dashboardConfigSchema,
};

/** A service behind the gateway: loopback, a free port, its own database, the shared secret and data folder. */
const BEHIND_GATEWAY = ['HOST', 'PORT', 'LOG_LEVEL', 'DATA_DIR', 'DATABASE_URL', 'INTERNAL_SECRET'] as const;
/** Each process's own key (the one it verifies with, or the gateway's per upstream), set by the launcher. */
const GATEWAY_KEYS = [
  'INTERNAL_SECRET',
  'INTERNAL_SECRET_KEYS',
  'INTERNAL_SECRET_IDENTITY',
  'INTERNAL_SECRET_CATALOG',
  'INTERNAL_SECRET_DEVICE',
  'INTERNAL_SECRET_BILLING',
  'INTERNAL_SECRET_WEBHOOKS',
] as const;

const SET_BY_LAUNCHER = {
  keys: BEHIND_GATEWAY,
  identity: BEHIND_GATEWAY,
  catalog: [...BEHIND_GATEWAY, 'PEER_INTERNAL_SECRET'],
  billing: BEHIND_GATEWAY,
  webhooks: [...BEHIND_GATEWAY, 'WEBHOOKS_SECRET_KEY', 'WEBHOOKS_SECRET_KEY_PREVIOUS', 'WEBHOOKS_ALLOW_PRIVATE_URLS'],
  device: [...BEHIND_GATEWAY, 'CATALOG_URL', 'CATALOG_PEER_SECRET'],
  gateway: [
    'HOST',
    'PORT',
    'METRICS_PORT',
    'LOG_LEVEL',
    ...GATEWAY_KEYS,
    'KEYS_URL',
    'IDENTITY_URL',
    'CATALOG_URL',
    'DEVICE_URL',
    'BILLING_URL',
    'WEBHOOKS_URL',
  ],
  dashboard: [
    'HOST',
    'PORT',
    'LOG_LEVEL',
    'COOKIE_SECURE',
    'GATEWAY_URL',
    'DASHBOARD_API_KEY',
    'DASHBOARD_API_SECRET',
    'SESSION_SECRET',
    'DEV_MAILBOX_FILE',
  ],
} as const satisfies Record<EmbeddedProcess, readonly string[]>;

export type EmbeddedProcess = keyof typeof SCHEMAS;
export type EmbeddedConfig<P extends EmbeddedProcess> = z.infer<(typeof SCHEMAS)[P]>;
/** Every variable the launcher decides for process P; `undefined` removes it (e.g. DATABASE_URL in the embedded mode). */
export type LauncherSettings<P extends EmbeddedProcess> = Record<(typeof SET_BY_LAUNCHER)[P][number], string | undefined>;

/** Process P's configuration: the environment, with the launcher's settings on top. */
export function embeddedConfig<P extends EmbeddedProcess>(process: P, env: Env, settings: LauncherSettings<P>): EmbeddedConfig<P> {
  return parseConfig(process, SCHEMAS[process], { ...env, ...settings }) as EmbeddedConfig<P>;
}

/**
 * Checked before anything starts: what each process would refuse in the environment, leaving out
 * the variables the launcher sets. A variable two processes read is reported once.
 */
export function embeddedConfigProblems(env: Env): ConfigProblem[] {
  const cleaned = withoutEmptyValues(env);
  const seen = new Map<string, ConfigProblem>();
  for (const process of Object.keys(SCHEMAS) as EmbeddedProcess[]) {
    const result = SCHEMAS[process].safeParse(cleaned);
    if (result.success) continue;
    const setByLauncher: readonly string[] = SET_BY_LAUNCHER[process];
    for (const problem of configProblems(result.error)) {
      if (!setByLauncher.includes(problem.variable)) seen.set(`${problem.variable}\n${problem.expected}`, problem);
    }
  }
  return [...seen.values()];
}
