import { UNAVAILABLE_RETRY_AFTER_SECONDS, errorOf, type AppError } from '@acs/errors';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
const TIMED_OUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (err as { cause?: unknown }).cause;
  return cause ? codeOf(cause) : undefined;
}

/**
 * 503 when the service can't be reached (with Retry-After, as every 503 of a store that is away), 504 when it is
 * too slow, 502 for anything else it did wrong.
 */
export function upstreamError(service: string, err: unknown): AppError {
  const code = codeOf(err);
  if (code && UNREACHABLE.has(code))
    return errorOf('unavailable', `The ${service} service is not reachable`, {
      cause: err,
      headers: { 'retry-after': UNAVAILABLE_RETRY_AFTER_SECONDS },
      hint: `The gateway could not connect to the ${service} service (restarting, or not running); retry after the Retry-After header's seconds.`,
    });
  if (code && TIMED_OUT.has(code)) return errorOf('gateway_timeout', `The ${service} service did not answer in time`, { cause: err });
  return errorOf('bad_gateway', `The ${service} service failed to answer`, { cause: err });
}

export function notDeployed(service: string): AppError {
  return errorOf('unavailable', `The ${service} service is not deployed yet`);
}
