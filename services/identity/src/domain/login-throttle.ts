import { createHash } from 'node:crypto';
import { AppError } from '@acs/errors';
import type { IdentityDeps, ThrottledLimit } from './deps.js';
import { addressBucket } from './client-address.js';
import { countOnLimiterStore } from './limiter-store.js';
import { isKnownAddress, knownAddressId, parseKnownAddresses, withKnownAddress } from './known-addresses.js';

/*
 * Keys hold a hash of the e-mail, never the address itself (Redis is not a place for personal data).
 * The `{...}` is the key's hash tag: on a Redis Cluster the account's counters, credits, pair and
 * known addresses share a slot, and the address's counter and credits another, so an attempt's
 * one pipelined round trip touches at most two primaries (docs/redis-cluster.md).
 */
const accountId = (email: string): string => createHash('sha256').update(email.toLowerCase()).digest('hex');
export const accountFailuresKey = (email: string): string => `login-fail:acct:{${accountId(email)}}`;
export const addressFailuresKey = (clientIp: string | undefined): string => `login-fail:addr:{${addressBucket(clientIp)}}`;
export const pairFailuresKey = (email: string, clientIp: string | undefined): string =>
  `login-fail:pair:{${accountId(email)}}:${addressBucket(clientIp)}`;
const knownAddressesKey = (email: string): string => `login-known:{${accountId(email)}}`;
/** Attempts counted first that turned out not to be failures (a success, or refused before any password check). */
const creditsKey = (failuresKey: string): string => failuresKey.replace(/^login-fail:/, 'login-ok:');

export class LoginThrottledError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly limit: ThrottledLimit,
  ) {
    // One answer for every limit and for real and unknown accounts alike: it tells a guesser nothing.
    super('too_many_requests', 'Too many requests', `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      code: 'login_throttled',
      hint: `Wait ${retryAfterSeconds} seconds before signing in again.`,
    });
  }
}

interface Counter {
  count: number;
  ttlSeconds: number;
}

export interface LoginAttempt {
  /** The password matched: the pair's count is cleared, the address becomes known to the account. */
  succeeded(): Promise<void>;
}

/**
 * Counts the attempt first, then decides, all before any bcrypt work (a refused guess costs no CPU):
 * one round trip increments the (account, address), address and account counters (each an atomic
 * INCR, fixed windows) and reads the credits and the account's known addresses. Counting first is
 * what makes the limits exact under concurrency: 40 parallel guesses at one pair see counts 1..40,
 * so exactly 5 reach bcrypt. An attempt that proves not to be a failure (a success, or one refused
 * here) is credited back on the address and account counters, so successful sign-ins behind a
 * shared (NAT) address never count against it. Refuses (429) when
 * - the pair has more than LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS, or
 * - the address has more than LOGIN_MAX_FAILURES_PER_ADDRESS failures across accounts, or
 * - the account has more than LOGIN_MAX_FAILURES_PER_ACCOUNT failures across addresses and this
 *   address is not one it signed in from within LOGIN_KNOWN_ADDRESS_DAYS.
 * The account is the lower-cased e-mail whether or not it exists, and nothing here reads the
 * database, so a throttled unknown e-mail and a throttled real account are answered alike.
 */
export async function beginLoginAttempt(
  deps: Pick<IdentityDeps, 'cache' | 'localLimiter' | 'settings' | 'logger' | 'metrics'>,
  email: string,
  clientIp: string | undefined,
): Promise<LoginAttempt> {
  const {
    maxFailuresPerAccountAddress,
    maxFailuresPerAccount,
    maxFailuresPerAddress,
    failureWindowSeconds: window,
    knownAddressSeconds,
  } = deps.settings;
  const pair = pairFailuresKey(email, clientIp);
  const address = addressFailuresKey(clientIp);
  const account = accountFailuresKey(email);
  const known = knownAddressesKey(email);
  const addressId = knownAddressId(addressBucket(clientIp));
  const startedAt = Date.now();
  const now = Math.floor(startedAt / 1000);

  // Issued in one event-loop turn: ioredis sends them as one pipeline, Redis runs them in this order.
  const { store, counts } = await countOnLimiterStore(deps, (cache) =>
    Promise.all([
      cache.incrWithTtl(pair, window),
      cache.incrWithTtl(address, window),
      cache.incrWithTtl(account, window),
      cache.get(creditsKey(address)),
      cache.get(creditsKey(account)),
      cache.get(known),
    ]),
  );
  const [pairCount, addressCount, accountCount, addressCredits, accountCredits, knownRaw] = counts;
  const knownAddresses = parseKnownAddresses(knownRaw, now, knownAddressSeconds);
  const addressFailures = addressCount.count - Number(addressCredits ?? 0);
  const accountFailures = accountCount.count - Number(accountCredits ?? 0);

  /*
   * A credit expires no later than the counter it offsets (its TTL is what was left of the counter's
   * window, rounded down), so credits never carry over into the counter's next window.
   */
  const credit = (failuresKey: string, counter: Counter): Promise<unknown> => {
    const ttl = Math.floor(counter.ttlSeconds - 1 - (Date.now() - startedAt) / 1000);
    return ttl >= 1 ? store.incrWithTtl(creditsKey(failuresKey), ttl) : Promise.resolve();
  };
  const bestEffort = (what: string, writes: Promise<unknown>[]): Promise<void> =>
    Promise.all(writes).then(
      () => undefined,
      (err: unknown) => deps.logger.warn({ err }, `sign-in limits: could not ${what} (the counts stay higher until the window ends)`),
    );

  const refusal: [ThrottledLimit, Counter] | null =
    pairCount.count > maxFailuresPerAccountAddress
      ? ['account_address', pairCount]
      : addressFailures > maxFailuresPerAddress
        ? ['address', addressCount]
        : accountFailures > maxFailuresPerAccount && !isKnownAddress(knownAddresses, addressId)
          ? ['account', accountCount]
          : null;
  if (refusal) {
    // No password was checked, so it is no failure: only the pair keeps it (it never extends the window).
    await bestEffort('credit a refused attempt', [credit(address, addressCount), credit(account, accountCount)]);
    throw new LoginThrottledError(Math.max(1, refusal[1].ttlSeconds), refusal[0]);
  }
  return {
    succeeded: () =>
      bestEffort('clear the counts after a successful sign-in', [
        store.del(pair),
        credit(address, addressCount),
        credit(account, accountCount),
        store.set(known, withKnownAddress(knownAddresses, addressId, now), knownAddressSeconds),
      ]),
  };
}
