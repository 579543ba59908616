import { findUserByEmail, upsertAdmin } from '../data-access/users-repository.js';
import { recordAccountChange } from './account-audit.js';
import { ROLE } from '@acs/contracts';
import type { User } from './user.js';
import type { IdentityDeps } from './deps.js';
import { passwordProblems, PASSWORD_POLICY } from './password-policy.js';
import { changeWithWriteThrough } from './write-through.js';

export interface SeedAdmin {
  email: string;
  password: string;
}

/** Checked before anything is opened: a bad seed must stop the start with a message an operator can act on. */
export function assertSeedAdmin(email: string | undefined, password: string | undefined): SeedAdmin | null {
  if (email === undefined && password === undefined) return null;
  if (email === undefined) throw new Error('SEED_ADMIN_EMAIL is required when SEED_ADMIN_PASSWORD is set');
  if (password === undefined) throw new Error('SEED_ADMIN_PASSWORD is required when SEED_ADMIN_EMAIL is set');
  const problems = passwordProblems(password, email);
  if (problems.length > 0) {
    throw new Error(`SEED_ADMIN_PASSWORD does not meet the password policy: it ${problems.join('; it ')}. The policy: ${PASSWORD_POLICY}.`);
  }
  return { email, password };
}

/**
 * Creates the Admin, or updates the existing account of that e-mail (any case): new password
 * hash, role at least Admin (an operator's promotion to SuperAdmin survives restarts), and
 * writes its authorization record through.
 */
export async function applySeedAdmin(deps: IdentityDeps, seed: SeedAdmin): Promise<User> {
  const passwordHash = await deps.passwords.hash(seed.password);
  const user = (await changeWithWriteThrough(deps, async (tx) => {
    const before = await findUserByEmail(tx, seed.email);
    const seeded = await upsertAdmin(tx, { email: seed.email, passwordHash, firstName: 'Admin', lastName: 'Admin', role: ROLE.admin });
    // Every start applies the seed again (with a fresh bcrypt salt): only a new account or a changed role is a change to record.
    if (!before || before.accountRole !== seeded.accountRole) await recordAccountChange(tx, deps.actor, 'account.seeded', before, seeded);
    return seeded;
  }))!;
  deps.logger.info({ audit: 'user.seeded', userId: user.id, role: user.accountRole }, 'seed Admin applied');
  return user;
}
