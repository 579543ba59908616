import { hash, timingSafeEqual } from 'node:crypto';

/**
 * API secrets are 256-bit random values, so SHA-256 is enough to make a leaked table useless
 * (ARCHITECTURE.md, decision 2); bcrypt would cost ~60 ms of CPU on every request.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'base64url');
}

/** Constant-time comparison of a presented secret against a stored hash. */
export function secretMatchesHash(secret: string, storedHash: string | Buffer): boolean {
  // One-shot crypto.hash (Node >= 20.12): no Hash object per call, this runs on every gateway request.
  const presented = hash('sha256', secret, 'buffer');
  const stored = typeof storedHash === 'string' ? Buffer.from(storedHash, 'base64url') : storedHash;
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
