import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Signing secrets at rest: they must be usable for signing, so they are encrypted, not hashed
 * (AES-256-GCM; the key is SHA-256 of WEBHOOKS_SECRET_KEY). A row copied out of the database is
 * useless without the key, and GCM's tag refuses a box that was altered or sealed under another key.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each base64url.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(box: string): string;
}

export function secretBox(keyMaterial: string): SecretBox {
  const key = createHash('sha256').update(`acs webhook secrets: ${keyMaterial}`).digest();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(box) {
      const [version, iv, tag, data] = box.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed webhook secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
