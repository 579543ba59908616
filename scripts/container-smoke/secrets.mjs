// The secrets of one smoke run (scripts/container-smoke.sh), made fresh each run: what an operator
// puts in .env (docker-compose.yml) or in the Secret acs-secrets (k8s/secret.example.yaml).
//   node scripts/container-smoke/secrets.mjs <run id> <dir>
// writes <dir>/secrets.json and <dir>/compose.env (shell `export` lines for podman-compose).
// Every variable .env.example names gets a value: a generated secret in the format its process
// checks, the example's own value where it has one, else nothing (docker-compose.yml's default).
import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

if (process.argv.includes('--help') || process.argv.length < 4) {
  console.log('usage: node scripts/container-smoke/secrets.mjs <run id> <dir>');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}
const [, , runId, dir] = process.argv;

const token = (bytes = 32) => randomBytes(bytes).toString('base64url');
const alnum = (n) =>
  Array.from({ length: n }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[randomInt(62)]).join('');
const jwk = { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: `smoke.${token(6)}` };

/**
 * The host's servers (docs/deploy.md): PostgreSQL as its trusted superuser; Redis is the run's own
 * redis-server, started from the ACL users of deploy/redis/acl-users.sh (names acs-<process>); RabbitMQ
 * is the shared broker, with users of deploy/rabbitmq/users.sh named after the run (<run id>-<service>).
 */
const database = (service) => `postgres://postgres@postgres:5432/${runId}_${service}`;
const passwords = {
  REDIS_PASSWORD: token(16),
  REDIS_GATEWAY_PASSWORD: token(16),
  REDIS_KEYS_PASSWORD: token(16),
  REDIS_IDENTITY_PASSWORD: token(16),
  RABBITMQ_PASSWORD: token(16),
  RABBITMQ_BILLING_PASSWORD: token(16),
  RABBITMQ_DEVICE_PASSWORD: token(16),
  RABBITMQ_IDENTITY_PASSWORD: token(16),
  RABBITMQ_KEYS_PASSWORD: token(16),
  RABBITMQ_WEBHOOKS_PASSWORD: token(16),
};
const redis = (process) => `redis://acs-${process}:${passwords[`REDIS_${process.toUpperCase()}_PASSWORD`]}@redis:6379`;
const amqp = (service) => `amqp://${runId}-${service}:${passwords[`RABBITMQ_${service.toUpperCase()}_PASSWORD`]}@rabbitmq:5672`;

const secrets = {
  INTERNAL_SECRET: token(48),
  // One internal key per service (docs/security.md); the gateway holds each as INTERNAL_SECRET_<SERVICE>.
  KEYS_INTERNAL_SECRET: token(48),
  IDENTITY_INTERNAL_SECRET: token(48),
  CATALOG_INTERNAL_SECRET: token(48),
  DEVICE_INTERNAL_SECRET: token(48),
  BILLING_INTERNAL_SECRET: token(48),
  WEBHOOKS_INTERNAL_SECRET: token(48),
  DEVICE_CATALOG_INTERNAL_SECRET: token(48),
  // The webhooks service's key for its endpoints' signing secrets at rest.
  WEBHOOKS_SECRET_KEY: token(48),
  // A rotation under way (docs/security.md): the pods start with a previous key too, which opens nothing here.
  WEBHOOKS_SECRET_KEY_PREVIOUS: token(48),
  JWT_SIGNING_KEY: JSON.stringify(jwk),
  JWT_VERIFICATION_KEYS: '[]',
  // identity's key for TOTP secrets at rest: 32 random bytes, base64 (as `openssl rand -base64 32`).
  TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  DASHBOARD_API_KEY: `acs_live_${alnum(24)}`,
  DASHBOARD_API_SECRET: token(32),
  SESSION_SECRET: token(48),
  SEED_ADMIN_EMAIL: `admin-${runId.replaceAll('_', '-')}@example.com`,
  SEED_ADMIN_PASSWORD: `smoke-${token(12)}`,
  // docker-compose.yml's own passwords: required there, unused with the override (host servers).
  POSTGRES_PASSWORD: token(16),
  KEYS_DB_PASSWORD: token(16),
  IDENTITY_DB_PASSWORD: token(16),
  CATALOG_DB_PASSWORD: token(16),
  DEVICE_DB_PASSWORD: token(16),
  BILLING_DB_PASSWORD: token(16),
  WEBHOOKS_DB_PASSWORD: token(16),
  // Redis' and RabbitMQ's: the processes' own users and the operator's (compose's `default`; acs unused here).
  ...passwords,
  // The Secret's URLs (k8s/secret.example.yaml).
  KEYS_DATABASE_URL: database('keys'),
  IDENTITY_DATABASE_URL: database('identity'),
  CATALOG_DATABASE_URL: database('catalog'),
  CATALOG_READ_DATABASE_URL: database('catalog'),
  DEVICE_DATABASE_URL: database('device'),
  BILLING_DATABASE_URL: database('billing'),
  WEBHOOKS_DATABASE_URL: database('webhooks'),
  GATEWAY_REDIS_URL: redis('gateway'),
  KEYS_REDIS_URL: redis('keys'),
  IDENTITY_REDIS_URL: redis('identity'),
  REDIS_ADMIN_URL: `redis://default:${passwords.REDIS_PASSWORD}@redis:6379`,
  IDENTITY_AMQP_URL: amqp('identity'),
  BILLING_AMQP_URL: amqp('billing'),
  DEVICE_AMQP_URL: amqp('device'),
  KEYS_AMQP_URL: amqp('keys'),
  WEBHOOKS_AMQP_URL: amqp('webhooks'),
  // identity's outgoing mail: a port nothing listens on, so a link's send fails at once (logged); the
  // journeys read no mail.
  SMTP_URL: 'smtp://smoke:unused@127.0.0.1:9',
  // The Job rabbitmq-users is read, not run (the shared broker has no HTTP API): the users are made with rabbitmqctl.
  RABBITMQ_MANAGEMENT_URL: 'http://rabbitmq:15672',
};

const shellQuote = (value) => `'${value.replaceAll("'", "'\\''")}'`;
const exampleLines = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n');
const composeEnv = [];
for (const line of exampleLines) {
  const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
  if (!match) continue;
  const [, name, example] = match;
  // compose's own URL variable names the replica: keep the read path on the primary here.
  if (name === 'CATALOG_READ_DATABASE_URL') continue;
  const value = secrets[name] ?? (example || undefined);
  if (value !== undefined) composeEnv.push(`export ${name}=${shellQuote(value)}`);
}

writeFileSync(join(dir, 'secrets.json'), `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
writeFileSync(join(dir, 'compose.env'), `${composeEnv.join('\n')}\n`, { mode: 0o600 });
