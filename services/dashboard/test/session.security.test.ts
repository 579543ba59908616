import { describe, expect, it } from '@jest/globals';
import { isValidCsrfToken, csrfTokenFor } from '../src/session/csrf.js';
import { deriveKeys } from '../src/session/derived-keys.js';
import { open, seal } from '../src/session/sealed-box.js';
import { createSessionCookies } from '../src/session/session-cookies.js';
import { anonymousSession, signedInSession, type Session } from '../src/session/session.js';

// The cookie cryptography on its own: what a forged, altered, moved or expired cookie gets.
const SECRET = 'unit-test-session-secret-0123456789abcdefgh';
const keys = deriveKeys(SECRET);
const cookieValue = (line: string): string => line.split(';')[0]!.split('=').slice(1).join('=');
const header = (name: string, line: string): string => `${name}=${cookieValue(line)}`;
const inAnHour = (): string => new Date(Date.now() + 3600_000).toISOString();

describe('sealed box (AES-256-GCM)', () => {
  it('opens what it sealed, with the same key and purpose only', () => {
    const sealed = seal(keys.encryption, 'acs_session', '{"a":1}');
    expect(open(keys.encryption, 'acs_session', sealed)).toBe('{"a":1}');
    expect(open(keys.encryption, 'acs_flash', sealed)).toBeNull();
    expect(open(deriveKeys(`${SECRET}-other`).encryption, 'acs_session', sealed)).toBeNull();
    expect(open(keys.csrf, 'acs_session', sealed)).toBeNull();
  });

  it('refuses every single-character change, truncation and garbage', () => {
    const sealed = seal(keys.encryption, 'p', 'the user token');
    for (let i = 0; i < sealed.length; i += 1) {
      const changed = sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1);
      // The last character of base64url may carry unused bits; everything else must be detected.
      if (Buffer.from(changed, 'base64url').equals(Buffer.from(sealed, 'base64url'))) continue;
      expect(open(keys.encryption, 'p', changed)).toBeNull();
    }
    expect(open(keys.encryption, 'p', sealed.slice(0, -2))).toBeNull();
    expect(open(keys.encryption, 'p', '')).toBeNull();
    expect(open(keys.encryption, 'p', 'not base64 at all!')).toBeNull();
    expect(open(keys.encryption, 'p', 'A'.repeat(5000))).toBeNull();
  });

  it('never seals the same plaintext to the same value (random IV)', () => {
    expect(seal(keys.encryption, 'p', 'same')).not.toBe(seal(keys.encryption, 'p', 'same'));
  });
});

describe('session cookies', () => {
  const cookies = createSessionCookies(SECRET, false);

  it('round-trips a signed-in session; another secret, an expired session or a flash in its place is signed out', () => {
    const session = signedInSession('header.payload.signature', inAnHour());
    const line = cookies.sessionCookie(session);
    expect(cookies.readSession(header('acs_session', line))).toEqual(session);
    expect(createSessionCookies(`${SECRET}-rotated`, false).readSession(header('acs_session', line))).toBeNull();
    const expired: Session = { ...session, exp: Math.floor(Date.now() / 1000) - 1 };
    expect(cookies.readSession(header('acs_session', cookies.sessionCookie(expired)))).toBeNull();
    const flashLine = cookies.flashCookie({ kind: 'notice', message: 'hi' }, session);
    expect(cookies.readSession(`acs_session=${cookieValue(flashLine)}`)).toBeNull();
  });

  it('a flash is read only by the session it was left for', () => {
    const session = anonymousSession();
    const line = cookies.flashCookie({ kind: 'notice', message: 'saved' }, session);
    expect(cookies.readFlash(header('acs_flash', line), session)).toEqual({ kind: 'notice', message: 'saved' });
    expect(cookies.readFlash(header('acs_flash', line), anonymousSession())).toBeNull();
  });

  it('Secure mode: __Host- names and the Secure attribute; every cookie HttpOnly and SameSite=Strict', () => {
    const secure = createSessionCookies(SECRET, true);
    const line = secure.sessionCookie(anonymousSession());
    expect(line).toMatch(/^__Host-acs_session=/);
    expect(line.split('; ').slice(1)).toEqual([
      'Path=/',
      expect.stringMatching(/^Max-Age=4320\d$/),
      'HttpOnly',
      'SameSite=Strict',
      'Secure',
    ]);
    expect(secure.clearFlashCookie()).toBe('__Host-acs_flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure');
  });

  it('a new session id at every sign-in', () => {
    const before = anonymousSession();
    expect(signedInSession('t', inAnHour()).sid).not.toBe(before.sid);
  });
});

describe('CSRF tokens', () => {
  it('verify for their own session only, in constant time (lengths differ: false, not a throw)', () => {
    const token = csrfTokenFor(keys.csrf, 'session-one-000000000a');
    expect(isValidCsrfToken(keys.csrf, 'session-one-000000000a', token)).toBe(true);
    expect(isValidCsrfToken(keys.csrf, 'session-two-000000000a', token)).toBe(false);
    expect(isValidCsrfToken(deriveKeys(`${SECRET}x`).csrf, 'session-one-000000000a', token)).toBe(false);
    expect(isValidCsrfToken(keys.csrf, 'session-one-000000000a', token.slice(1))).toBe(false);
    expect(isValidCsrfToken(keys.csrf, 'session-one-000000000a', '')).toBe(false);
    expect(isValidCsrfToken(keys.csrf, 'session-one-000000000a', null)).toBe(false);
  });

  it('the CSRF key and the cookie key are different keys', () => {
    expect(keys.csrf.equals(keys.encryption)).toBe(false);
  });
});
