const SUBJECT = /^[1-9][0-9]{0,15}$/;
/** The verifier refuses longer tokens, so no longer one is ever decoded here either. */
const MAX_TOKEN_LENGTH = 4096;

/**
 * The user id a token *claims* (its `sub`), read without checking the signature: base64url and
 * JSON.parse of the payload, about a microsecond, no cryptography. Used only to name the user's
 * authorization record in the same Redis read as the key record; nothing is granted on it. The
 * token is verified after the key passes, and the verified `sub` must equal this one.
 */
export function claimedUserId(token: string): number | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first === -1 || second === -1) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.slice(first + 1, second), 'base64url').toString('utf8'));
    const sub = (payload as { sub?: unknown } | null)?.sub;
    return typeof sub === 'string' && SUBJECT.test(sub) ? Number(sub) : undefined;
  } catch {
    return undefined;
  }
}
