import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, parseConfig } from '@acs/config';
import { containerRequired, type Component } from './components.js';

/**
 * Stand-ins for what operators put in `.env` / the Secret (the committed files hold placeholders
 * only): valid values, so that parsing a container's environment checks the files' own literals.
 */
const signingKey = { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: 'deploy-test.1' };
export const SECRET_FIXTURES: Readonly<Record<string, string>> = {
  POSTGRES_PASSWORD: 'pg0123456789abcdef',
  KEYS_DB_PASSWORD: 'keys0123456789abcdef',
  IDENTITY_DB_PASSWORD: 'identity0123456789abcdef',
  CATALOG_DB_PASSWORD: 'catalog0123456789abcdef',
  DEVICE_DB_PASSWORD: 'device0123456789abcdef',
  BILLING_DB_PASSWORD: 'billing0123456789abcdef',
  WEBHOOKS_DB_PASSWORD: 'webhooks0123456789abcdef',
  REDIS_PASSWORD: 'redis0123456789abcdef',
  REDIS_GATEWAY_PASSWORD: 'redis-gateway0123456789abcdef',
  REDIS_KEYS_PASSWORD: 'redis-keys0123456789abcdef',
  REDIS_IDENTITY_PASSWORD: 'redis-identity0123456789abcdef',
  RABBITMQ_PASSWORD: 'mq0123456789abcdef',
  RABBITMQ_BILLING_PASSWORD: 'mq-billing0123456789abcdef',
  RABBITMQ_DEVICE_PASSWORD: 'mq-device0123456789abcdef',
  RABBITMQ_IDENTITY_PASSWORD: 'mq-identity0123456789abcdef',
  RABBITMQ_KEYS_PASSWORD: 'mq-keys0123456789abcdef',
  RABBITMQ_WEBHOOKS_PASSWORD: 'mq-webhooks0123456789abcdef',
  KEYS_INTERNAL_SECRET: 'keys-internal-key-for-the-deploy-tests-0123456789',
  IDENTITY_INTERNAL_SECRET: 'identity-internal-key-for-the-deploy-tests-0123456789',
  CATALOG_INTERNAL_SECRET: 'catalog-internal-key-for-the-deploy-tests-0123456789',
  DEVICE_INTERNAL_SECRET: 'device-internal-key-for-the-deploy-tests-0123456789',
  BILLING_INTERNAL_SECRET: 'billing-internal-key-for-the-deploy-tests-0123456789',
  WEBHOOKS_INTERNAL_SECRET: 'webhooks-internal-key-for-the-deploy-tests-0123456789',
  WEBHOOKS_SECRET_KEY: 'webhooks-secret-box-key-for-the-deploy-tests-0123456789',
  WEBHOOKS_SECRET_KEY_PREVIOUS: 'webhooks-previous-secret-box-key-for-the-deploy-tests-0123',
  DEVICE_CATALOG_INTERNAL_SECRET: 'device-to-catalog-key-for-the-deploy-tests-0123456789',
  JWT_SIGNING_KEY: JSON.stringify(signingKey),
  JWT_VERIFICATION_KEYS: '[]',
  TOTP_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
  // The dashboard's key, which keys seeds (its SEED_API_KEY / SEED_API_SECRET come from these).
  DASHBOARD_API_KEY: 'acs_live_0123456789abcdefABCDEFgh',
  DASHBOARD_API_SECRET: 'dashboard-secret-for-the-deploy-tests-012345',
  SESSION_SECRET: 'session-secret-for-the-deploy-tests-0123456789',
  SEED_ADMIN_EMAIL: 'admin@example.com',
  SEED_ADMIN_PASSWORD: 'plum-lantern-orchard-7731',
  KEYS_DATABASE_URL: 'postgres://keys:pw@db.example:5432/acs_keys',
  IDENTITY_DATABASE_URL: 'postgres://identity:pw@db.example:5432/acs_identity',
  CATALOG_DATABASE_URL: 'postgres://catalog:pw@db.example:5432/acs_catalog',
  // Host postgres: in docker-compose.yml it is interpolated, and its host must be a service catalog waits for.
  CATALOG_READ_DATABASE_URL: 'postgres://acs_catalog:pw@postgres:5432/acs_catalog',
  DEVICE_DATABASE_URL: 'postgres://device:pw@db.example:5432/acs_device',
  BILLING_DATABASE_URL: 'postgres://billing:pw@db.example:5432/acs_billing',
  WEBHOOKS_DATABASE_URL: 'postgres://webhooks:pw@db.example:5432/acs_webhooks',
  // Each process's own Redis ACL user and RabbitMQ user (deploy/redis/acl-users.sh, deploy/rabbitmq/users.sh).
  GATEWAY_REDIS_URL: 'rediss://acs-gateway:pw@redis.example:6380',
  KEYS_REDIS_URL: 'rediss://acs-keys:pw@redis.example:6380',
  IDENTITY_REDIS_URL: 'rediss://acs-identity:pw@redis.example:6380',
  IDENTITY_AMQP_URL: 'amqps://acs-identity:pw@mq.example:5671',
  BILLING_AMQP_URL: 'amqps://acs-billing:pw@mq.example:5671',
  DEVICE_AMQP_URL: 'amqps://acs-device:pw@mq.example:5671',
  KEYS_AMQP_URL: 'amqps://acs-keys:pw@mq.example:5671',
  WEBHOOKS_AMQP_URL: 'amqps://acs-webhooks:pw@mq.example:5671',
  SMTP_URL: 'smtps://mailer:pw@smtp.example:465',
  // The operator's, read by k8s/broker-users.yaml's Jobs only.
  REDIS_ADMIN_URL: 'rediss://default:pw@redis.example:6380',
  RABBITMQ_MANAGEMENT_URL: 'https://admin:pw@mq.example:15671',
};

/** One container's environment as the orchestrator would give it. */
export interface ContainerEnv {
  /** Every variable that may be set, with a value (secrets: the fixtures above). */
  values: Record<string, string>;
  /** The variables that are set on every start, whatever the operator leaves out. */
  guaranteed: Set<string>;
}

/** Names its problems after the container, so a failure reads as "where" and "what". */
export function envProblems(where: string, component: Component, env: ContainerEnv): string[] {
  const problems: string[] = [];
  const known = new Set(Object.keys(component.schema.shape));
  for (const name of Object.keys(env.values)) {
    if (!known.has(name)) problems.push(`${where}: ${name} is not a variable of ${component.schemaName}`);
  }
  for (const name of containerRequired(component)) {
    if (!env.guaranteed.has(name)) problems.push(`${where}: ${name} is required but not always set`);
  }
  try {
    parseConfig(component.name, component.schema, env.values);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const p of err.problems) problems.push(`${where}: ${p.variable}: ${p.expected}`);
  }
  return problems;
}

/** The parsed configuration (defaults applied), for comparing containers with each other. */
export const parsedConfig = (component: Component, env: ContainerEnv): Record<string, unknown> =>
  parseConfig(component.name, component.schema, env.values) as Record<string, unknown>;

/**
 * Settings that must agree between processes, as [variable, the components that use it]:
 * the gateway verifies what identity signs and reads what keys and identity write.
 */
const SHARED_SETTINGS: readonly [string, readonly string[]][] = [
  ['RATE_LIMITS_LIVE', ['gateway', 'keys']],
  ['RATE_LIMITS_TEST', ['gateway', 'keys']],
  ['REDIS_PREFIX', ['gateway', 'keys', 'identity']],
  ['BUS_EXCHANGE', ['identity', 'billing', 'keys', 'device', 'webhooks']],
  ['JWT_ISSUER', ['gateway', 'identity']],
  ['JWT_AUDIENCE', ['gateway', 'identity']],
];

/**
 * Internal keys (docs/security.md): the gateway's key for each upstream is that service's own, device's key for
 * the catalog is the catalog's peer key, and no two services hold the same one.
 */
const KEY_PAIRS: readonly [string, string, string, string][] = [
  ['gateway', 'INTERNAL_SECRET_KEYS', 'keys', 'INTERNAL_SECRET'],
  ['gateway', 'INTERNAL_SECRET_IDENTITY', 'identity', 'INTERNAL_SECRET'],
  ['gateway', 'INTERNAL_SECRET_CATALOG', 'catalog', 'INTERNAL_SECRET'],
  ['gateway', 'INTERNAL_SECRET_DEVICE', 'device', 'INTERNAL_SECRET'],
  ['gateway', 'INTERNAL_SECRET_BILLING', 'billing', 'INTERNAL_SECRET'],
  ['gateway', 'INTERNAL_SECRET_WEBHOOKS', 'webhooks', 'INTERNAL_SECRET'],
  ['device', 'CATALOG_PEER_SECRET', 'catalog', 'PEER_INTERNAL_SECRET'],
];

function internalKeyProblems(configs: ReadonlyMap<string, Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [signer, signerVariable, verifier, verifierVariable] of KEY_PAIRS) {
    const signs = configs.get(signer)?.[signerVariable];
    const verifies = configs.get(verifier)?.[verifierVariable];
    if (signs === undefined || signs !== verifies) problems.push(`${signer} ${signerVariable} is not ${verifier}'s ${verifierVariable}`);
  }
  const owners = new Map<unknown, string[]>();
  for (const name of ['keys', 'identity', 'catalog', 'device', 'billing', 'webhooks']) {
    for (const variable of ['INTERNAL_SECRET', 'PEER_INTERNAL_SECRET']) {
      const value = configs.get(name)?.[variable];
      if (value !== undefined) owners.set(value, [...(owners.get(value) ?? []), `${name} ${variable}`]);
    }
  }
  for (const holders of owners.values()) if (holders.length > 1) problems.push(`one internal key is held by ${holders.join(' and ')}`);
  if (configs.get('gateway')?.INTERNAL_SECRET !== undefined) problems.push('the gateway holds one INTERNAL_SECRET for every upstream');
  return problems;
}

/**
 * Issue 24.5: each process reaches Redis and RabbitMQ as its own user (`acs-<process>`, as the users' scripts
 * name them), all on one server: no two processes share a password, none uses the operator's account.
 */
const OWN_USERS: readonly [string, readonly string[]][] = [
  ['REDIS_URL', ['gateway', 'keys', 'identity']],
  ['AMQP_URL', ['identity', 'billing', 'keys', 'device', 'webhooks']],
];

function ownUserProblems(configs: ReadonlyMap<string, Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [variable, users] of OWN_USERS) {
    const servers = new Set<string>();
    for (const name of users) {
      const value = configs.get(name)?.[variable];
      if (typeof value !== 'string') {
        problems.push(`${name} has no ${variable}`);
        continue;
      }
      const url = new URL(value);
      servers.add(`${url.protocol}//${url.host}`);
      if (url.username !== `acs-${name}`) problems.push(`${name}'s ${variable} logs in as "${url.username}", not acs-${name}`);
    }
    if (servers.size > 1) problems.push(`${variable} names different servers: ${[...servers].join(', ')}`);
  }
  return problems;
}

export function sharedSettingProblems(configs: ReadonlyMap<string, Record<string, unknown>>): string[] {
  const problems: string[] = [...internalKeyProblems(configs), ...ownUserProblems(configs)];
  for (const [variable, users] of SHARED_SETTINGS) {
    const values = new Map(users.map((name) => [name, JSON.stringify(configs.get(name)?.[variable])]));
    if (new Set(values.values()).size > 1) problems.push(`${variable} differs: ${[...values].map(([n, v]) => `${n}=${v}`).join(', ')}`);
  }
  return problems;
}

/** `KEYS_URL` → `keys`: the component a service URL variable points at (upstreams of the gateway, device's catalog). */
export const targetOfUrlVariable = (variable: string): string | undefined => /^([A-Z]+)_URL$/.exec(variable)?.[1]?.toLowerCase();
