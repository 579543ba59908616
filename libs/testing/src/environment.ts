import { randomBytes } from 'node:crypto';

/**
 * Where the integration tests find PostgreSQL, Redis and RabbitMQ. Unset variables fall back to
 * the local servers every machine of this project runs; a server that does not answer makes the
 * test fail, never skip (CI must fail loudly).
 */
const TEST_SERVER_DEFAULTS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  REDIS_URL: 'redis://127.0.0.1:6379',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
} as const;

export type TestServer = keyof typeof TEST_SERVER_DEFAULTS;

export function testServerUrl(name: TestServer): string {
  const value = process.env[name];
  return value && value.length > 0 ? value : TEST_SERVER_DEFAULTS[name];
}

/** A name no other run or test uses: databases, Redis key prefixes, exchanges and queues. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}
