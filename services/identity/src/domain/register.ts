import { recordAccountChange } from './account-audit.js';
import { AppError, conflict } from '@acs/errors';
import { isUniqueViolation } from '@acs/db';
import type { RegisterResponse } from '@acs/contracts';
import { findUserByEmail, insertUser } from '../data-access/users-repository.js';
import { accessAt, nowSeconds, profileOf, type User } from './user.js';
import type { IdentityDeps } from './deps.js';
import { assertPasswordPolicy } from './password-policy.js';
import type { RegisterInput } from './user-input.js';
import { changeWithWriteThrough } from './write-through.js';
import { addressBucket } from './client-address.js';
import { countOnLimiterStore } from './limiter-store.js';

/** Says what to do next; the dashboard shows its own words for it. */
const EMAIL_TAKEN_MESSAGE = 'An account with this e-mail address already exists. Sign in with it, or register with another address.';
const emailTaken = (): AppError => conflict(EMAIL_TAKEN_MESSAGE, { code: 'email_taken' });

const registrationsKey = (clientIp: string | undefined): string => `register:addr:${addressBucket(clientIp)}`;

class RegistrationThrottledError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'too_many_requests',
      'Too many requests',
      `Too many registrations from this network. Try again in ${retryAfterSeconds} seconds.`,
      {
        headers: { 'Retry-After': String(retryAfterSeconds) },
        code: 'registration_throttled',
        hint: `Wait ${retryAfterSeconds} seconds, then register again.`,
      },
    );
  }
}

/**
 * Registrations per client address are counted first (every one, an atomic INCR in a fixed
 * window): each hashes a password on libuv's four threads, which logins share, so an unlimited
 * flood would stall every sign-in.
 */
async function assertRegistrationAllowed(deps: IdentityDeps, clientIp: string | undefined): Promise<void> {
  const { maxRegistrationsPerAddress, registrationWindowSeconds } = deps.settings;
  const { counts } = await countOnLimiterStore(deps, (cache) => cache.incrWithTtl(registrationsKey(clientIp), registrationWindowSeconds));
  if (counts.count <= maxRegistrationsPerAddress) return;
  deps.metrics.registrationThrottled();
  deps.logger.warn(
    { audit: 'user.register_throttled', address: addressBucket(clientIp), retryAfterSeconds: counts.ttlSeconds },
    'registration throttled',
  );
  throw new RegistrationThrottledError(Math.max(1, counts.ttlSeconds));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A taken e-mail is found before any hashing (no bcrypt spent on it) and answered 409 after the
 * time a hash would have taken (a timer, no CPU), so it is answered like a new registration's
 * failure would be, at the pace the per-address limit allows. See README (Users) for why 409.
 */
async function assertEmailFree(deps: IdentityDeps, email: string): Promise<void> {
  if (!(await findUserByEmail(deps.db, email))) return;
  await sleep(deps.passwords.hashMillis);
  deps.logger.info({ audit: 'user.register_refused', reason: 'email_taken' }, 'registration refused: e-mail taken');
  throw emailTaken();
}

/**
 * Limits per address, checks the password policy and that the e-mail is free (both before any
 * hashing), then creates a Free account with a trial of TRIAL_DURATION_SECONDS (none when 0),
 * hashed with bcrypt off the event loop, and writes its authorization record through before
 * answering. Two registrations of one e-mail at once: the unique index lets one win, the other gets 409.
 */
export async function registerUser(deps: IdentityDeps, input: RegisterInput, clientIp?: string): Promise<User> {
  await assertRegistrationAllowed(deps, clientIp);
  assertPasswordPolicy(input.password, input.email);
  await assertEmailFree(deps, input.email);
  const passwordHash = await deps.passwords.hash(input.password);
  const trialSeconds = deps.settings.trialDurationSeconds;
  // Whole seconds, so the database and the record (Unix seconds) name the same instant.
  const trialEndsAt = trialSeconds > 0 ? new Date((nowSeconds() + trialSeconds) * 1000) : null;
  let user: User;
  try {
    user = (await changeWithWriteThrough(deps, async (tx) => {
      const created = await insertUser(tx, {
        email: input.email,
        passwordHash,
        firstName: input.firstName,
        lastName: input.lastName,
        trialEndsAt,
      });
      await recordAccountChange(tx, deps.actor, 'account.created', null, created);
      return created;
    }))!;
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
  deps.logger.info({ audit: 'user.registered', userId: user.id, trialEndsAt: trialEndsAt?.toISOString() ?? null }, 'user registered');
  return user;
}

/** The 201 body: the user as the API shows it (effective role), never the hash. */
export function toRegisterResponse(user: User, now = nowSeconds()): RegisterResponse {
  const { role, onTrial } = accessAt(user, now);
  return {
    ...profileOf(user),
    role,
    isTrialSubscription: onTrial,
    trialExpiresAt: onTrial && user.trialEndsAt ? user.trialEndsAt.toISOString() : null,
  };
}
