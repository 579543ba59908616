import { Pool } from 'undici';
import type { GatewayConfig } from '../config.js';
import type { ServiceName } from '../routing/route-table.js';

export interface Upstream {
  name: ServiceName;
  origin: string;
  pool: Pool;
  /** Signs the contexts sent to this service: its own key (INTERNAL_SECRET_<NAME>), which no other service holds. */
  internalSecret: string;
}

export type Upstreams = Map<ServiceName, Upstream>;

/** The key for upstream `name`: its own variable, else INTERNAL_SECRET (one key for all: development and tests). */
function internalSecretFor(config: GatewayConfig, name: ServiceName): string | undefined {
  return config[KEY_VARIABLE[name]] ?? config.INTERNAL_SECRET;
}

const KEY_VARIABLE = {
  identity: 'INTERNAL_SECRET_IDENTITY',
  keys: 'INTERNAL_SECRET_KEYS',
  catalog: 'INTERNAL_SECRET_CATALOG',
  device: 'INTERNAL_SECRET_DEVICE',
  billing: 'INTERNAL_SECRET_BILLING',
  webhooks: 'INTERNAL_SECRET_WEBHOOKS',
} as const satisfies Record<ServiceName, keyof GatewayConfig>;

const URL_VARIABLE: Record<ServiceName, keyof GatewayConfig> = {
  identity: 'IDENTITY_URL',
  keys: 'KEYS_URL',
  catalog: 'CATALOG_URL',
  device: 'DEVICE_URL',
  billing: 'BILLING_URL',
  webhooks: 'WEBHOOKS_URL',
};

/** One keep-alive pool per configured service; services left unset are "not deployed". */
export function createUpstreams(config: GatewayConfig): Upstreams {
  const upstreams: Upstreams = new Map();
  for (const [name, variable] of Object.entries(URL_VARIABLE) as [ServiceName, keyof GatewayConfig][]) {
    const url = config[variable];
    if (typeof url !== 'string') continue;
    const origin = new URL(url).origin;
    const pool = new Pool(origin, {
      connections: config.UPSTREAM_CONNECTIONS,
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
      connectTimeout: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      keepAliveTimeout: 4_000,
    });
    const internalSecret = internalSecretFor(config, name);
    // The configuration refuses an upstream without a key (config.ts): this is only for the type.
    if (internalSecret === undefined) throw new Error(`${KEY_VARIABLE[name]} is not set`);
    upstreams.set(name, { name, origin, pool, internalSecret });
  }
  return upstreams;
}

export async function closeUpstreams(upstreams: Upstreams): Promise<void> {
  await Promise.all([...upstreams.values()].map((upstream) => upstream.pool.close()));
}
