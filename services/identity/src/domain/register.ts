import { conflict } from '@acs/errors';
import { isUniqueViolation } from '@acs/db';
import type { RegisterResponse } from '@acs/contracts';
import { insertUser } from '../data-access/users-repository.js';
import { accessAt, nowSeconds, type User } from './user.js';
import type { IdentityDeps } from './deps.js';
import { assertPasswordPolicy } from './password-policy.js';
import type { RegisterInput } from './user-input.js';
import { changeWithWriteThrough } from './write-through.js';

export const EMAIL_TAKEN_MESSAGE = 'An account with this e-mail address already exists';

/**
 * Creates a Free account with a trial of TRIAL_DURATION_SECONDS (none when 0), hashed with bcrypt
 * off the event loop, and writes its authorization record through before answering.
 */
export async function registerUser(deps: IdentityDeps, input: RegisterInput): Promise<User> {
  assertPasswordPolicy(input.password, input.email);
  const passwordHash = await deps.passwords.hash(input.password);
  const trialSeconds = deps.settings.trialDurationSeconds;
  // Whole seconds, so the database and the record (Unix seconds) name the same instant.
  const trialEndsAt = trialSeconds > 0 ? new Date((nowSeconds() + trialSeconds) * 1000) : null;
  let user: User;
  try {
    user = (await changeWithWriteThrough(deps, (tx) =>
      insertUser(tx, { email: input.email, passwordHash, firstName: input.firstName, lastName: input.lastName, trialEndsAt }),
    ))!;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN_MESSAGE);
    throw err;
  }
  deps.logger.info({ audit: 'user.registered', userId: user.id, trialEndsAt: trialEndsAt?.toISOString() ?? null }, 'user registered');
  return user;
}

/** The 201 body: the user as the API shows it (effective role), never the hash. */
export function toRegisterResponse(user: User, now = nowSeconds()): RegisterResponse {
  const { role, onTrial } = accessAt(user, now);
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    role,
    isTrialSubscription: onTrial,
    trialExpiresAt: onTrial && user.trialEndsAt ? user.trialEndsAt.toISOString() : null,
  };
}
