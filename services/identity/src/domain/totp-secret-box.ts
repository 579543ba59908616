import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@acs/logger';

/**
 * TOTP secrets at rest (issue 32): AES-256-GCM under TOTP_ENCRYPTION_KEY, the user id as additional
 * data (a sealed secret copied to another user's row does not open). Stored as iv (12) || ciphertext
 * (20) || tag (16) = 48 bytes; a 20-byte value is a secret stored before encryption, which
 * `encryptPlaintextSecrets` seals at start (and `openSecret` still reads, for the moment between).
 */
const PLAINTEXT_LENGTH = 20;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const KEY_FILE = 'totp-encryption.key';

export type TotpKey = Buffer;

const additionalData = (userId: number): Buffer => Buffer.from(`acs-totp:${userId}`, 'utf8');

export function sealSecret(key: TotpKey, userId: number, secret: Buffer): Buffer {
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(additionalData(userId));
  return Buffer.concat([iv, cipher.update(secret), cipher.final(), cipher.getAuthTag()]);
}

/** The secret of a stored value: sealed (opened and authenticated), or a plaintext one from before encryption. */
export function openSecret(key: TotpKey, userId: number, stored: Buffer): Buffer {
  if (stored.length === PLAINTEXT_LENGTH) return stored;
  const iv = stored.subarray(0, IV_LENGTH);
  const tag = stored.subarray(stored.length - TAG_LENGTH);
  const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(additionalData(userId)).setAuthTag(tag);
  return Buffer.concat([decipher.update(stored.subarray(IV_LENGTH, stored.length - TAG_LENGTH)), decipher.final()]);
}

/** TOTP_ENCRYPTION_KEY: 32 bytes in base64 (or base64url); anything else stops the start. */
export function parseTotpKey(text: string): TotpKey {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error('TOTP_ENCRYPTION_KEY must be 32 random bytes in base64 (e.g. `openssl rand -base64 32`)');
  return key;
}

/**
 * The key from TOTP_ENCRYPTION_KEY, or (npm start, one machine) the one kept in
 * DATA_DIR/identity/totp-encryption.key, generated on first use like the JWT signing key.
 */
export async function loadTotpKey(configured: string | undefined, dataDir: string, logger: Logger): Promise<TotpKey> {
  if (configured) return parseTotpKey(configured);
  const dir = join(dataDir, 'identity');
  const file = join(dir, KEY_FILE);
  const existing = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (existing !== null) return parseTotpKey(existing);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const generated = randomBytes(32).toString('base64');
  try {
    await writeFile(file, `${generated}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return parseTotpKey(await readFile(file, 'utf8'));
  }
  logger.info({ file }, 'generated a TOTP encryption key (set TOTP_ENCRYPTION_KEY to manage it yourself)');
  return parseTotpKey(generated);
}
