import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';

/** bcrypt reads at most 72 bytes and ignores the rest: longer passwords are refused, never truncated. */
export const BCRYPT_MAX_BYTES = 72;

/**
 * Passwords are compared in NFKC form (NIST SP 800-63B, 5.1.1.2), so the same password typed on
 * keyboards that produce different Unicode sequences (composed "é" or "e" + accent) still matches.
 */
export const normalizePassword = (password: string): string => password.normalize('NFKC');

const fitsBcrypt = (password: string): boolean => Buffer.byteLength(normalizePassword(password), 'utf8') <= BCRYPT_MAX_BYTES;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /**
   * A hash of a random password at the same cost: a login for an unknown e-mail is compared with
   * it, so it costs as long as a wrong password for a real account and timing reveals nothing.
   */
  dummyHash: string;
  /** How long one hash took (the dummy one, at start): a taken e-mail's 409 waits as long. */
  hashMillis: number;
}

/** bcrypt's async API runs on libuv's thread pool (UV_THREADPOOL_SIZE, default 4), off the event loop. */
export async function createPasswordHasher(cost: number): Promise<PasswordHasher> {
  const hash = (password: string): Promise<string> => {
    if (!fitsBcrypt(password))
      return Promise.reject(new Error(`passwords longer than ${BCRYPT_MAX_BYTES} bytes are refused, not truncated`));
    return bcrypt.hash(normalizePassword(password), cost);
  };
  const started = performance.now();
  const dummyHash = await hash(randomBytes(24).toString('base64url'));
  const hashMillis = Math.round(performance.now() - started);
  return {
    hash,
    // Too long can never match: bcrypt would compare only the first 72 bytes.
    verify: async (password, stored) => fitsBcrypt(password) && bcrypt.compare(normalizePassword(password), stored),
    dummyHash,
    hashMillis,
  };
}
