import { randomBytes } from 'node:crypto';

export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** A deployment's fixed key prefix: lower-case letters and digits, so keys stay easy to grep and to spot in leaks. */
export const KEY_PREFIX_PATTERN = /^[a-z][a-z0-9]{1,15}$/;

// Base62, not base64url: the identifier must not contain `_`, which joins the parts of a key.
export const BASE62_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const IDENTIFIER_LENGTH = 24; // 24 base62 characters carry ~142 bits

export interface ParsedApiKey {
  prefix: string;
  environment: KeyEnvironment;
  identifier: string;
}

const KEY_PATTERN = /^([a-z][a-z0-9]{1,15})_(live|test)_([A-Za-z0-9]{16,64})$/;

/** `<prefix>_<environment>_<identifier>` (docs/api-contract.md, "API keys"). */
export function parseApiKey(key: string): ParsedApiKey | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  return { prefix: match[1]!, environment: match[2] as KeyEnvironment, identifier: match[3]! };
}

/** `length` uniformly random base62 characters. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Rejection sampling keeps every character equally likely (248 = 62 * 4).
      if (byte < 248) out += BASE62_ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(prefix: string, environment: KeyEnvironment): string {
  if (!KEY_PREFIX_PATTERN.test(prefix)) throw new Error(`invalid key prefix: ${prefix}`);
  return `${prefix}_${environment}_${randomBase62(IDENTIFIER_LENGTH)}`;
}
