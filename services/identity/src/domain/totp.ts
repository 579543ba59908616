import { createHmac, timingSafeEqual } from 'node:crypto';

// RFC 6238 TOTP (HMAC-SHA-1, 6 digits, 30-second steps) on RFC 4226 HOTP, with node:crypto only.

const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: what authenticator apps read from the otpauth:// URI. */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** RFC 4226 section 5.3: HMAC-SHA-1 of the 8-byte counter, dynamic truncation, 6 decimal digits. */
export function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac('sha1', secret).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** DIGITS).padStart(DIGITS, '0');
}

export const timeStep = (nowSeconds: number): number => Math.floor(nowSeconds / TOTP_PERIOD_SECONDS);

/**
 * The time step whose code `code` is, within one step either side of now (clock drift, a code typed as it
 * changes), or null. Every candidate is computed and compared, so the time does not say which one matched.
 */
export function matchingStep(secret: Buffer, code: string, nowSeconds: number): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const now = timeStep(nowSeconds);
  let found: number | null = null;
  const given = Buffer.from(code);
  for (const step of [now - 1, now, now + 1]) if (timingSafeEqual(Buffer.from(hotp(secret, step)), given) && found === null) found = step;
  return found;
}

/** The otpauth:// URI (Google Authenticator's Key Uri Format) that a QR code carries. */
export function otpauthUri(secret: Buffer, account: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  // Percent-encoded (a space as %20, not URLSearchParams' "+", which authenticator apps show literally).
  const params = [
    `secret=${base32Encode(secret)}`,
    `issuer=${encodeURIComponent(issuer)}`,
    'algorithm=SHA1',
    `digits=${DIGITS}`,
    `period=${TOTP_PERIOD_SECONDS}`,
  ].join('&');
  return `otpauth://totp/${label}?${params}`;
}
