import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { commaSeparatedEntries } from '@acs/config';

/**
 * Signing secrets at rest: they must be usable for signing, so they are encrypted, not hashed
 * (AES-256-GCM; the key is SHA-256 of WEBHOOKS_SECRET_KEY). A row copied out of the database is
 * useless without the key, and GCM's tag refuses a box that was altered or sealed under another key.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each base64url.
 */
export interface SecretBox {
  /** Always under the current key. */
  seal(plain: string): string;
  /** Under the current key, else (during a rotation) a previous one; throws when none fits. */
  open(box: string): string;
  /** As open, but null when no key fits (or the box is malformed). */
  tryOpen(box: string): string | null;
}

const boxKey = (keyMaterial: string): Buffer => createHash('sha256').update(`acs webhook secrets: ${keyMaterial}`).digest();

function sealUnder(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The plain secret, or null when GCM's tag says the box was not sealed under this key (or was altered). */
function openUnder(key: Buffer, iv: Buffer, tag: Buffer, data: Buffer): string | null {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * `previousKeys`: the keys a rotation replaced (WEBHOOKS_SECRET_KEY_PREVIOUS), still read so that
 * boxes sealed before it keep signing until `npm run webhooks -- reseal` moves them to the current key.
 */
export function secretBox(currentKey: string, previousKeys: readonly string[] = []): SecretBox {
  const current = boxKey(currentKey);
  const keys = [current, ...previousKeys.map(boxKey)];
  return {
    seal: (plain) => sealUnder(current, plain),
    tryOpen(box) {
      const parts = boxParts(box);
      return parts && openUnderAny(keys, parts);
    },
    open(box) {
      const parts = boxParts(box);
      if (parts === null) throw new Error('not a sealed webhook secret');
      const plain = openUnderAny(keys, parts);
      // Never the box or a key in the message: it may reach the logs.
      if (plain === null)
        throw new Error('a sealed webhook secret fits none of the keys (WEBHOOKS_SECRET_KEY, WEBHOOKS_SECRET_KEY_PREVIOUS)');
      return plain;
    },
  };
}

type BoxParts = readonly [iv: Buffer, tag: Buffer, data: Buffer];

/** A box's IV, tag and ciphertext; null when it is not of the `v1` form. */
function boxParts(box: string): BoxParts | null {
  const [version, iv, tag, data] = box.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) return null;
  return [Buffer.from(iv, 'base64url'), Buffer.from(tag, 'base64url'), Buffer.from(data, 'base64url')];
}

/** The plain secret under the first key that fits, else null. */
function openUnderAny(keys: readonly Buffer[], parts: BoxParts): string | null {
  for (const key of keys) {
    const plain = openUnder(key, ...parts);
    if (plain !== null) return plain;
  }
  return null;
}

/**
 * The keys a configuration reads boxes with besides the current one: WEBHOOKS_SECRET_KEY_PREVIOUS while a rotation
 * sets it (several when a rotation starts before the last one's reseal, or under `npm start`, which keeps its
 * derived key readable).
 */
export const previousBoxKeys = (config: { WEBHOOKS_SECRET_KEY_PREVIOUS?: string | undefined }): string[] =>
  config.WEBHOOKS_SECRET_KEY_PREVIOUS ? commaSeparatedEntries(config.WEBHOOKS_SECRET_KEY_PREVIOUS) : [];
