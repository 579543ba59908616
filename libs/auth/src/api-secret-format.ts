import { BASE62_ALPHABET, type KeyEnvironment, randomBase62 } from './api-key-format.js';

/*
 * API secrets (issue 31, docs/key-format.md): `<prefix>_<live|test>_<30 random base62><6 base62 checksum>`.
 * The prefix names the platform and the environment so secret scanners (gitleaks, GitHub's) recognise a leaked
 * secret; 30 base62 characters carry ~178 bits; the checksum is the CRC32 of everything before it, so a scanner
 * (and the gateway, before any Redis read) can tell a real secret from a typo or junk offline, as GitHub's tokens do.
 */
const SECRET_RANDOM_LENGTH = 30;

/** CRC-32 (IEEE 802.3, zlib's) lookup table. */
const CRC_TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c;
}

/**
 * zlib's CRC32 of `text[0, end)`, whose characters are ASCII (so they are their UTF-8 bytes). In JS: zlib.crc32 on a
 * string costs ~2 µs (it encodes the string first), this ~0.1 µs, and it is on every request of a new-format secret.
 */
function crc32Of(text: string, end: number): number {
  let crc = -1;
  for (let i = 0; i < end; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
const SECRET_CHECKSUM_LENGTH = 6;

/** The 6 base62 characters of `text`'s CRC32, most significant first (62^6 > 2^32, so they always fit). */
export function secretChecksum(text: string): string {
  let value = crc32Of(text, text.length);
  let out = '';
  for (let i = 0; i < SECRET_CHECKSUM_LENGTH; i++) {
    out = BASE62_ALPHABET[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new secret for a key of `prefix` and `environment` (the key's own, so the two read alike). */
export function generateApiSecret(prefix: string, environment: KeyEnvironment): string {
  const body = `${prefix}_${environment}_${randomBase62(SECRET_RANDOM_LENGTH)}`;
  return body + secretChecksum(body);
}

/** Base62 digit values by character code; -1 outside the alphabet. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE62_ALPHABET.length; i++) DIGIT[BASE62_ALPHABET.charCodeAt(i)] = i;

/**
 * How a presented secret stands against the format, for the key it came with:
 * - 'legacy': not of the new format (it does not start with `<prefix>_live_` or `<prefix>_test_`): a secret made
 *   before issue 31 (32 random bytes in base64url, or an operator's SEED_API_SECRET). Checked against the hash as before.
 * - 'valid': of the new format, for this key's environment, with the right length, alphabet and checksum.
 * - 'invalid': it starts like a new secret but is not one (wrong length, alphabet, environment or checksum):
 *   no key's secret can be this string, so it is refused without reading anything.
 * A legacy base64url secret starts with `acs_live_` by chance with probability 64^-9 (about 2^-54); a seeded
 * secret that looks new must be valid (the keys service checks it at start). No allocation on the 'legacy' path.
 */
export function classifyApiSecret(secret: string, prefix: string, environment: KeyEnvironment): 'legacy' | 'valid' | 'invalid' {
  const p = prefix.length;
  if (!secret.startsWith(prefix) || secret.charCodeAt(p) !== 95 /* _ */) return 'legacy';
  const live = secret.startsWith('live_', p + 1);
  if (!live && !secret.startsWith('test_', p + 1)) return 'legacy';
  if ((live ? 'live' : 'test') !== environment) return 'invalid';
  const bodyLength = p + 6 + SECRET_RANDOM_LENGTH;
  if (secret.length !== bodyLength + SECRET_CHECKSUM_LENGTH) return 'invalid';
  for (let i = p + 6; i < bodyLength; i++) {
    const code = secret.charCodeAt(i);
    if (code >= 128 || DIGIT[code]! < 0) return 'invalid';
  }
  let claimed = 0;
  for (let i = bodyLength; i < secret.length; i++) {
    const code = secret.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code]! : -1;
    if (digit < 0) return 'invalid';
    claimed = claimed * 62 + digit;
  }
  return claimed === crc32Of(secret, bodyLength) ? 'valid' : 'invalid';
}
