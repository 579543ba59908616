/*
 * A database, cache or broker that cannot be reached is not a bug of ours: the client should hear
 * 503 (try again), not 500. Infrastructure libs mark such errors (markDependencyUnavailable);
 * network-level failures are recognised by their codes wherever they come from.
 */

const MARK = 'dependencyUnavailable';

/** Node's socket-level failures: the other side is down, unreachable or went away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/**
 * SQLSTATEs meaning "the database cannot serve right now": class 08 (connection exception; 08P01
 * is a protocol violation, i.e. our bug, so not included), admin/crash shutdown, cannot connect
 * now, too many connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)[0-9A-Z]{3}|57P01|57P02|57P03|53300)$/;

/** Marks `err` (in place) as "a dependency is unavailable" and returns it, for rethrowing. */
export function markDependencyUnavailable<E>(err: E): E {
  if (typeof err === 'object' && err !== null) Object.defineProperty(err, MARK, { value: true, enumerable: false });
  return err;
}

/** True when `err`, or an error in its cause chain, says a dependency could not be reached. */
export function isDependencyUnavailable(err: unknown): boolean {
  for (
    let current = err, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if ((current as Record<string, unknown>)[MARK] === true) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  }
  return false;
}
