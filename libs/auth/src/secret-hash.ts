import { hash, timingSafeEqual } from 'node:crypto';

/**
 * API secrets are 256-bit random values, so SHA-256 is enough to make a leaked table useless
 * (docs/architecture.md, decision 2); bcrypt would cost ~60 ms of CPU on every request.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'base64url');
}

/*
 * The gateway checks a secret on every request. crypto.hash with a Buffer result costs about four times the
 * hash itself (a new ArrayBuffer from native code); a 'binary' (latin1) string result is copied into this reused buffer
 * instead. Synchronous from hash to compare, so one buffer serves every call.
 */
const presentedHash = Buffer.alloc(32);

/** Constant-time comparison of a presented secret against a stored hash (32 bytes, or their base64url). */
export function secretMatchesHash(secret: string, storedHash: string | Buffer): boolean {
  const stored = typeof storedHash === 'string' ? Buffer.from(storedHash, 'base64url') : storedHash;
  if (stored.length !== presentedHash.length) return false;
  presentedHash.write(hash('sha256', secret, 'binary'), 0, 'latin1');
  return timingSafeEqual(presentedHash, stored);
}
