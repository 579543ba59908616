import { createHash } from 'node:crypto';
import { AppError } from '@acs/errors';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import type { IdentityDeps, IdentitySettings, ThrottledLimit } from './deps.js';
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

type ThrottleDeps = Pick<IdentityDeps, 'cache' | 'localLimiter' | 'settings' | 'logger' | 'metrics'>;

/** The counters one attempt increments and the account's known addresses. */
interface AttemptKeys {
  pair: string;
  address: string;
  account: string;
  known: string;
}

const attemptKeys = (email: string, clientIp: string | undefined): AttemptKeys => ({
  pair: pairFailuresKey(email, clientIp),
  address: addressFailuresKey(clientIp),
  account: accountFailuresKey(email),
  known: knownAddressesKey(email),
});

/** What the limits are checked against: the counters, the failures net of credits, the known addresses. */
interface CountedAttempt {
  pair: Counter;
  address: Counter;
  account: Counter;
  addressFailures: number;
  accountFailures: number;
  knownAddresses: ReturnType<typeof parseKnownAddresses>;
}

/** Counts the attempt on the shared counters (or this process's, during an outage) and reads what the check needs. */
async function countAttempt(deps: ThrottleDeps, keys: AttemptKeys, now: number): Promise<{ store: Cache; counted: CountedAttempt }> {
  const window = deps.settings.failureWindowSeconds;
  // Issued in one event-loop turn: ioredis sends them as one pipeline, Redis runs them in this order.
  const { store, counts } = await countOnLimiterStore(deps, (cache) =>
    Promise.all([
      cache.incrWithTtl(keys.pair, window),
      cache.incrWithTtl(keys.address, window),
      cache.incrWithTtl(keys.account, window),
      cache.get(creditsKey(keys.address)),
      cache.get(creditsKey(keys.account)),
      cache.get(keys.known),
    ]),
  );
  const [pair, address, account, addressCredits, accountCredits, knownRaw] = counts;
  const knownAddresses = parseKnownAddresses(knownRaw, now, deps.settings.knownAddressSeconds);
  const addressFailures = address.count - Number(addressCredits ?? 0);
  const accountFailures = account.count - Number(accountCredits ?? 0);
  return { store, counted: { pair, address, account, addressFailures, accountFailures, knownAddresses } };
}

/** The limit that refuses this attempt, with the counter whose window the caller must wait out; null when none does. */
function refusalOf(settings: IdentitySettings, counted: CountedAttempt, addressId: string): [ThrottledLimit, Counter] | null {
  return counted.pair.count > settings.maxFailuresPerAccountAddress
    ? ['account_address', counted.pair]
    : counted.addressFailures > settings.maxFailuresPerAddress
      ? ['address', counted.address]
      : counted.accountFailures > settings.maxFailuresPerAccount && !isKnownAddress(counted.knownAddresses, addressId)
        ? ['account', counted.account]
        : null;
}

/*
 * A credit expires no later than the counter it offsets (its TTL is what was left of the counter's
 * window, rounded down), so credits never carry over into the counter's next window.
 */
function credit(store: Cache, startedAt: number, failuresKey: string, counter: Counter): Promise<unknown> {
  const ttl = Math.floor(counter.ttlSeconds - 1 - (Date.now() - startedAt) / 1000);
  return ttl >= 1 ? store.incrWithTtl(creditsKey(failuresKey), ttl) : Promise.resolve();
}

const bestEffort = (logger: Logger, what: string, writes: Promise<unknown>[]): Promise<void> =>
  Promise.all(writes).then(
    () => undefined,
    (err: unknown) => logger.warn({ err }, `sign-in limits: could not ${what} (the counts stay higher until the window ends)`),
  );

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
export async function beginLoginAttempt(deps: ThrottleDeps, email: string, clientIp: string | undefined): Promise<LoginAttempt> {
  const keys = attemptKeys(email, clientIp);
  const addressId = knownAddressId(addressBucket(clientIp));
  const startedAt = Date.now();
  const now = Math.floor(startedAt / 1000);
  const { store, counted } = await countAttempt(deps, keys, now);

  const refusal = refusalOf(deps.settings, counted, addressId);
  if (refusal) {
    // No password was checked, so it is no failure: only the pair keeps it (it never extends the window).
    await bestEffort(deps.logger, 'credit a refused attempt', [
      credit(store, startedAt, keys.address, counted.address),
      credit(store, startedAt, keys.account, counted.account),
    ]);
    throw new LoginThrottledError(Math.max(1, refusal[1].ttlSeconds), refusal[0]);
  }
  return {
    succeeded: () =>
      bestEffort(deps.logger, 'clear the counts after a successful sign-in', [
        store.del(keys.pair),
        credit(store, startedAt, keys.address, counted.address),
        credit(store, startedAt, keys.account, counted.account),
        store.set(keys.known, withKnownAddress(counted.knownAddresses, addressId, now), deps.settings.knownAddressSeconds),
      ]),
  };
}
