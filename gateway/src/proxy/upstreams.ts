import { Pool } from 'undici';
import type { GatewayConfig } from '../config.js';
import type { ServiceName } from '../routing/route-table.js';

export interface Upstream {
  name: ServiceName;
  origin: string;
  pool: Pool;
}

export type Upstreams = Map<ServiceName, Upstream>;

const URL_VARIABLE: Record<ServiceName, keyof GatewayConfig> = {
  identity: 'IDENTITY_URL',
  keys: 'KEYS_URL',
  catalog: 'CATALOG_URL',
  device: 'DEVICE_URL',
  billing: 'BILLING_URL',
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
    upstreams.set(name, { name, origin, pool });
  }
  return upstreams;
}

export async function closeUpstreams(upstreams: Upstreams): Promise<void> {
  await Promise.all([...upstreams.values()].map((upstream) => upstream.pool.close()));
}
