import type { Attributes } from '@opentelemetry/api';
import { ATTR, inClientSpan } from '@acs/tracing';

/** The span attributes of one Redis server (never its password, nor any key or value). */
export function redisAttributes(url: string): Attributes {
  const parsed = new URL(url);
  return {
    [ATTR.dbSystem]: 'redis',
    [ATTR.dbNamespace]: parsed.pathname.length > 1 ? parsed.pathname.slice(1) : '0',
    [ATTR.serverAddress]: parsed.hostname,
    [ATTR.serverPort]: parsed.port ? Number(parsed.port) : 6379,
  };
}

/**
 * A CLIENT span named after the Redis command, when tracing is on and the call is part of a traced
 * operation (a request, a consumed message). Keys and values are not recorded: keys name API keys
 * and users. The gateway's per-request read makes its own span (gateway/src/tracing).
 */
export function tracedCommand<T>(server: Attributes, command: string, run: () => Promise<T>): Promise<T> {
  return inClientSpan('@acs/cache', () => ({ name: command, attributes: { ...server, [ATTR.dbOperation]: command } }), run);
}
