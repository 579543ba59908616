import { isIP } from 'node:net';
import { z } from 'zod';

// Reusable environment fields, so every service spells ports, URLs and flags the same way.

export const port = (fallback: number) =>
  z.coerce.number({ error: 'expected a TCP port number' }).int().min(0).max(65535).default(fallback);

/**
 * A port for an optional listener, or `off` for none (null). `0` keeps its usual meaning, a free
 * port, so "off" needs a word of its own.
 */
export const portOrOff = (fallback: number | 'off') =>
  z.coerce
    .string()
    .default(String(fallback))
    .refine((value) => value === 'off' || (/^\d{1,5}$/.test(value) && Number(value) <= 65535), 'expected a TCP port number, or off')
    .transform((value) => (value === 'off' ? null : Number(value)));

const url = (protocols: readonly string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    `expected a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
  );

export const httpUrl = () => url(['http', 'https']);
export const postgresUrl = () => url(['postgres', 'postgresql']);
export const redisUrl = () => url(['redis', 'rediss']);
export const amqpUrl = () => url(['amqp', 'amqps']);

/** The non-empty, trimmed entries of a comma-separated list (`a, b,,c` -> a, b, c). */
export function commaSeparatedEntries(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** `host:port,host:port,...` (IPv6 in brackets: `[::1]:7001`): nodes of a Redis Cluster to start from. */
export const redisClusterNodes = () =>
  z
    .string()
    .transform(commaSeparatedEntries)
    .refine(
      (entries) => entries.length > 0 && entries.every((entry) => clusterNode(entry) !== null),
      'expected comma-separated host:port pairs, e.g. redis-0:6379,redis-1:6379',
    )
    .transform((entries) => entries.map((entry) => clusterNode(entry)!));

function clusterNode(entry: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/@[\]]+):(\d{1,5})$/.exec(entry);
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'expected true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const logLevel = () =>
  z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'expected a pino level (info, debug, ...)' })
    .default('info');

/** A count or duration in whole units within [min, max]; the messages name the bounds. */
export const wholeNumber = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: 'expected a whole number' })
    .int('expected a whole number')
    .min(min, `expected at least ${min}`)
    .max(max, `expected at most ${max}`)
    .default(fallback);

/** Shared secrets must be long enough that guessing them is hopeless. */
export const secret = (minLength = 32) => z.string().min(minLength, `expected at least ${minLength} characters`);

/** Comma-separated IP addresses and CIDR ranges (e.g. trusted proxies); empty: none. */
export const addressList = () =>
  z
    .string()
    .default('')
    .transform(commaSeparatedEntries)
    .refine(
      (entries) =>
        entries.every((entry) => {
          const [address = '', prefix] = entry.split('/');
          const family = isIP(address);
          const maxPrefix = family === 4 ? 32 : 128;
          return family !== 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix));
        }),
      'expected comma-separated IP addresses or CIDR ranges, e.g. 10.0.0.0/8,fd00::/8',
    );
