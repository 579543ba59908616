import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Browsers keep about 4 KB per cookie; anything longer was not made here. */
const MAX_SEALED_CHARS = 4000;

/**
 * AES-256-GCM: the cookie's content is secret (it holds the user's JWT) and any change to it is
 * detected. `purpose` is authenticated too, so a value sealed as a flash message can never be
 * accepted as a session, or the other way round. Layout: version | iv | tag | ciphertext, base64url.
 */
export function seal(key: Buffer, purpose: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The plaintext, or null for anything not sealed with this key and purpose (tampered, truncated, foreign). */
export function open(key: Buffer, purpose: string, sealed: string): string | null {
  if (sealed.length > MAX_SEALED_CHARS || !/^[A-Za-z0-9_-]+$/.test(sealed)) return null;
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
