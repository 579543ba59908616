import { createHash } from 'node:crypto';
import { AppError } from '@acs/errors';
import type { IdentityDeps, ThrottledLimit } from './deps.js';
import { addressBucket } from './client-address.js';

/** Keys hold a hash of the e-mail, never the address itself (Redis is not a place for personal data). */
export const accountFailuresKey = (email: string): string => `login-fail:acct:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;
export const addressFailuresKey = (clientIp: string | undefined): string => `login-fail:addr:${addressBucket(clientIp)}`;

export class LoginThrottledError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly limit: ThrottledLimit,
  ) {
    super('too_many_requests', 'Too many requests', `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/** Brute-force protection fails closed: without the counters, a login is refused rather than left unlimited. */
const throttleUnavailable = (cause: unknown): AppError =>
  new AppError('unavailable', 'Service unavailable', 'Sign-in is temporarily unavailable. Try again shortly.', { cause });

/**
 * Fixed-window failure counters per account (the lower-cased e-mail, existing or not, so the
 * answer reveals nothing) and per client address. Checked before bcrypt runs: a throttled guess
 * costs no CPU. Check-then-count lets concurrent guesses overshoot the limit by at most the number
 * in flight, which keeps successful logins from counting against a shared (NAT) address.
 */
export function loginThrottle(deps: Pick<IdentityDeps, 'cache' | 'settings'>, email: string, clientIp: string | undefined) {
  const { maxFailuresPerAccount, maxFailuresPerAddress, failureWindowSeconds } = deps.settings;
  const account = accountFailuresKey(email);
  const address = addressFailuresKey(clientIp);
  return {
    /** Throws 429 (with Retry-After) when either counter has reached its limit, 503 when the counters are unreachable. */
    async assertAllowed(): Promise<void> {
      let counts: (string | null)[];
      try {
        counts = await deps.cache.mget([account, address]);
      } catch (err) {
        throw throttleUnavailable(err);
      }
      const accountOver = Number(counts[0] ?? 0) >= maxFailuresPerAccount;
      const addressOver = Number(counts[1] ?? 0) >= maxFailuresPerAddress;
      if (!accountOver && !addressOver) return;
      const over = [accountOver ? account : null, addressOver ? address : null].filter((key): key is string => key !== null);
      // The attempt counts too (same fixed window, so it never extends the block); its answer says how long is left.
      let ttls: number[];
      try {
        ttls = (await Promise.all(over.map((key) => deps.cache.incrWithTtl(key, failureWindowSeconds)))).map((r) => r.ttlSeconds);
      } catch (err) {
        throw throttleUnavailable(err);
      }
      const limit: ThrottledLimit = accountOver && addressOver ? 'account_and_address' : accountOver ? 'account' : 'address';
      throw new LoginThrottledError(Math.max(1, ...ttls), limit);
    },
    async recordFailure(): Promise<void> {
      try {
        await Promise.all([deps.cache.incrWithTtl(account, failureWindowSeconds), deps.cache.incrWithTtl(address, failureWindowSeconds)]);
      } catch (err) {
        throw throttleUnavailable(err);
      }
    },
    /** A successful login clears the account's count; the address keeps its own (one good account must not reset it). */
    reset: (): Promise<void> => deps.cache.del(account),
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
