import { badRequest } from '@acs/errors';

const DAY_MS = 86_400_000;

/**
 * A new key's expiry: in the future and, when the deployment sets KEY_MAX_LIFETIME_DAYS, at most that
 * many days ahead (400 with details otherwise). Null or undefined: the key does not expire.
 */
function checkExpiresAt(expiresAt: Date | null | undefined, maxLifetimeDays: number | null, now = Date.now()): Date | null {
  if (!expiresAt) return null;
  if (expiresAt.getTime() <= now)
    throw badRequest('expiresAt must be in the future', [{ path: 'body.expiresAt', message: 'must be in the future' }]);
  if (maxLifetimeDays !== null && expiresAt.getTime() > now + maxLifetimeDays * DAY_MS) throw beyondMaximum(maxLifetimeDays);
  return expiresAt;
}

const beyondMaximum = (maxLifetimeDays: number) =>
  badRequest(`expiresAt must be at most ${maxLifetimeDays} days ahead on this deployment`, [
    { path: 'body.expiresAt', message: `at most ${maxLifetimeDays} days ahead (KEY_MAX_LIFETIME_DAYS)` },
  ]);

/**
 * A user's new key as the request gives it: an instant (checked as above), `null` (never expires) or
 * nothing. With KEY_MAX_LIFETIME_DAYS set, every user key expires: nothing means the maximum, and
 * `null` is refused, so leaving the field out cannot outlive the deployment's rule.
 */
export function userKeyExpiry(requested: string | null | undefined, maxLifetimeDays: number | null, now = Date.now()): Date | null {
  if (maxLifetimeDays === null) return checkExpiresAt(requested ? new Date(requested) : null, null, now);
  if (requested === null) throw beyondMaximum(maxLifetimeDays);
  if (requested === undefined) return new Date(now + maxLifetimeDays * DAY_MS);
  return checkExpiresAt(new Date(requested), maxLifetimeDays, now);
}

/** The CLI's --expires-in: a whole number of seconds, minutes, hours or days ("30d", "12h"). */
export function parseExpiresIn(text: string): number {
  const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(text);
  if (!match) throw new Error('expected a whole number and a unit s, m, h or d, e.g. 30d');
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
}
