import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Synchronizer token without server state: HMAC-SHA-256 of the session id. It is bound to the
 * session (a token from another session, or from before sign-in, does not verify) and cannot be
 * made without SESSION_SECRET; the session id itself only ever travels encrypted.
 */
export function csrfTokenFor(key: Buffer, sid: string): string {
  return createHmac('sha256', key).update(`csrf:${sid}`).digest('base64url');
}

/** Constant-time comparison, so the response time reveals nothing about how much of a guess matched. */
export function isValidCsrfToken(key: Buffer, sid: string, candidate: string | null): boolean {
  if (candidate === null) return false;
  const expected = Buffer.from(csrfTokenFor(key, sid), 'utf8');
  const given = Buffer.from(candidate, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
