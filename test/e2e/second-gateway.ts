import { startProcess, type ServiceProcess } from '../../bench/src/processes.js';
import type { SystemUnderTest } from './system-harness.js';

/**
 * Another gateway *process* on the same Redis (or Redis Cluster) and services, as a scaled deployment runs
 * it: what replicas share (limits, quotas, revocations) is tested through two of them.
 */
export function startSecondGateway(sut: SystemUnderTest, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const redis: Record<string, string> = sut.env.REDIS_CLUSTER_NODES
    ? { REDIS_CLUSTER_NODES: sut.env.REDIS_CLUSTER_NODES }
    : { REDIS_URL: sut.env.REDIS_URL! };
  return startProcess('second gateway', 'gateway/dist/main.js', {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    METRICS_PORT: 'off',
    ...redis,
    REDIS_PREFIX: sut.env.REDIS_PREFIX!,
    // The same per-service keys as the system's own gateway: each service verifies with its own.
    INTERNAL_SECRET_KEYS: sut.system.internalKeys.keys,
    INTERNAL_SECRET_IDENTITY: sut.system.internalKeys.identity,
    INTERNAL_SECRET_CATALOG: sut.system.internalKeys.catalog,
    INTERNAL_SECRET_DEVICE: sut.system.internalKeys.device,
    INTERNAL_SECRET_BILLING: sut.system.internalKeys.billing,
    INTERNAL_SECRET_WEBHOOKS: sut.system.internalKeys.webhooks,
    KEYS_URL: sut.system.keys.server.url,
    IDENTITY_URL: sut.system.identity.server.url,
    CATALOG_URL: sut.system.catalog.server.url,
    DEVICE_URL: sut.system.device.server.url,
    BILLING_URL: sut.system.billing.server.url,
    WEBHOOKS_URL: sut.system.webhooks.server.url,
    ...env,
  });
}
