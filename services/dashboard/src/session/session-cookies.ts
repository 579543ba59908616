import { z } from 'zod';
import { cookieName, parseCookies, serializeCookie } from '../http/cookies.js';
import { csrfTokenFor, isValidCsrfToken } from './csrf.js';
import { deriveKeys } from './derived-keys.js';
import { flashSchema, type Flash } from './flash.js';
import { open, seal } from './sealed-box.js';
import { nowSeconds, sessionSchema, type Session } from './session.js';

const SESSION = 'acs_session';
const FLASH = 'acs_flash';
/** Long enough for one redirect, short enough that a created key's secret does not linger. */
const FLASH_SECONDS = 120;

const sealedFlashSchema = z.object({ sid: z.string(), flash: flashSchema });

export interface SessionCookies {
  /** The session in the request's cookies; null when missing, expired, tampered with or sealed with another secret. */
  readSession(cookieHeader: string | undefined): Session | null;
  sessionCookie(session: Session): string;
  clearSessionCookie(): string;
  /** The flash left for this session by the previous response, if any. */
  readFlash(cookieHeader: string | undefined, session: Session): Flash | null;
  flashCookie(flash: Flash, session: Session): string;
  clearFlashCookie(): string;
  csrfToken(session: Session): string;
  verifyCsrf(session: Session, candidate: string | null): boolean;
}

export function createSessionCookies(sessionSecret: string, secure: boolean): SessionCookies {
  const keys = deriveKeys(sessionSecret);
  const sessionName = cookieName(SESSION, secure);
  const flashName = cookieName(FLASH, secure);

  /** Each value of the name in turn (a name may repeat); the first that opens and parses wins. */
  function openFirst<T>(cookieHeader: string | undefined, name: string, schema: z.ZodType<T>): T | null {
    for (const value of parseCookies(cookieHeader).get(name) ?? []) {
      const plaintext = open(keys.encryption, name, value);
      if (plaintext === null) continue;
      try {
        const parsed = schema.safeParse(JSON.parse(plaintext));
        if (parsed.success) return parsed.data;
      } catch {
        // sealed by us but not JSON: cannot happen short of a bug; treat as absent
      }
    }
    return null;
  }

  return {
    readSession(cookieHeader) {
      const session = openFirst(cookieHeader, sessionName, sessionSchema);
      return session && session.exp > nowSeconds() ? session : null;
    },
    sessionCookie: (session) =>
      serializeCookie(sessionName, seal(keys.encryption, sessionName, JSON.stringify(session)), {
        secure,
        maxAgeSeconds: session.exp - nowSeconds(),
      }),
    clearSessionCookie: () => serializeCookie(sessionName, '', { secure, maxAgeSeconds: 0 }),
    readFlash(cookieHeader, session) {
      const sealed = openFirst(cookieHeader, flashName, sealedFlashSchema);
      return sealed && sealed.sid === session.sid ? sealed.flash : null;
    },
    flashCookie: (flash, session) =>
      serializeCookie(flashName, seal(keys.encryption, flashName, JSON.stringify({ sid: session.sid, flash })), {
        secure,
        maxAgeSeconds: FLASH_SECONDS,
      }),
    clearFlashCookie: () => serializeCookie(flashName, '', { secure, maxAgeSeconds: 0 }),
    csrfToken: (session) => csrfTokenFor(keys.csrf, session.sid),
    verifyCsrf: (session, candidate) => isValidCsrfToken(keys.csrf, session.sid, candidate),
  };
}
