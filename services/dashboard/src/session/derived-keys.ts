import { hkdfSync } from 'node:crypto';

export interface DerivedKeys {
  /** AES-256-GCM key of the session and flash cookies. */
  encryption: Buffer;
  /** HMAC-SHA-256 key of the CSRF tokens. */
  csrf: Buffer;
}

/**
 * One SESSION_SECRET, two independent keys (HKDF-SHA-256 with distinct labels), so the CSRF MAC
 * and the cookie cipher never share key material and each can be reasoned about alone.
 */
export function deriveKeys(sessionSecret: string): DerivedKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', Buffer.from(sessionSecret, 'utf8'), 'acs-dashboard', info, 32));
  return { encryption: derive('session-cookie-encryption v1'), csrf: derive('csrf-token-mac v1') };
}
