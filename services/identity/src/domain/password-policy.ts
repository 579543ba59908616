import { errorOf, type ErrorDetail } from '@acs/errors';
import { BCRYPT_MAX_BYTES, normalizePassword } from './passwords.js';
import { COMMON_PASSWORDS } from './common-passwords.js';

/**
 * The password policy, in the spirit of NIST SP 800-63B (5.1.1.2, memorized secrets):
 *   - at least 12 characters (Unicode code points after NFKC normalization);
 *   - at most 72 bytes in UTF-8, bcrypt's input limit: longer passwords are refused, never
 *     silently truncated (72 ASCII characters is above NIST's "at least 64 permitted");
 *   - not a commonly used password, nor one with only digits or symbols added around it;
 *   - not repetitive: not a short pattern repeated ("aaaaaaaaaaaa", "abcabcabcabc");
 *   - not containing the e-mail address's local part (the part before the @, when it has 3 or
 *     more characters; for "name+tag@", "name" as well);
 *   - no composition rules (no required digits, cases or symbols) and every character allowed,
 *     spaces and emoji included, as NIST recommends; no expiry.
 */
export const PASSWORD_POLICY =
  'at least 12 characters; at most 72 bytes in UTF-8; not a commonly used or repetitive password; ' +
  'not containing the part of the e-mail address before the @. Any characters are allowed and no mix of character kinds is required';

const PASSWORD_MIN_CHARACTERS = 12;

const DECORATION = /^[\d\p{P}\p{S}\s]+|[\d\p{P}\p{S}\s]+$/gu;

function isCommon(lower: string): boolean {
  if (COMMON_PASSWORDS.has(lower)) return true;
  const core = lower.replace(DECORATION, '');
  return core.length > 0 && COMMON_PASSWORDS.has(core);
}

/** A pattern of at most 4 characters repeated over the whole password. */
function isRepetitive(chars: string[]): boolean {
  for (let period = 1; period <= 4; period++) {
    if (chars.every((char, i) => char === chars[i % period])) return true;
  }
  return false;
}

function localParts(email: string): string[] {
  const local = email.slice(0, email.lastIndexOf('@')).toLowerCase();
  const parts = [local, local.split('+')[0] ?? ''];
  return [...new Set(parts)].filter((part) => part.length >= 3);
}

/** Every rule the password breaks; empty when it meets the policy. */
export function passwordProblems(password: string, email: string): string[] {
  const normalized = normalizePassword(password);
  const chars = [...normalized];
  const lower = normalized.toLowerCase();
  const problems: string[] = [];
  if (chars.length < PASSWORD_MIN_CHARACTERS) problems.push(`must have at least ${PASSWORD_MIN_CHARACTERS} characters`);
  if (Buffer.byteLength(normalized, 'utf8') > BCRYPT_MAX_BYTES) problems.push(`must be at most ${BCRYPT_MAX_BYTES} bytes in UTF-8`);
  if (isCommon(lower)) problems.push('is a commonly used password');
  else if (chars.length > 0 && isRepetitive(chars)) problems.push('is a short pattern repeated');
  if (localParts(email).some((part) => lower.includes(part))) problems.push('must not contain the part of the e-mail address before the @');
  return problems;
}

/** Throws 400 naming the policy and, in `details`, each rule the password breaks. */
export function assertPasswordPolicy(password: string, email: string, path = 'body.password'): void {
  const problems = passwordProblems(password, email);
  if (problems.length === 0) return;
  const details: ErrorDetail[] = problems.map((message) => ({ path, message: `The password ${message}` }));
  throw errorOf('bad_request', `The password does not meet the policy: ${PASSWORD_POLICY}`, {
    details,
    code: 'weak_password',
    hint: `Choose a password that meets the policy: ${PASSWORD_POLICY}`,
  });
}
