/**
 * The `sid` claim of the user's token (identity's session of this sign-in), read without verifying:
 * the gateway verifies the token on the call this id goes with, and refuses any but the owner's session.
 */
export function sessionIdOf(token: string): string | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const sid = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sid?: unknown }).sid;
    return typeof sid === 'string' && /^[A-Za-z0-9_-]{12}$/.test(sid) ? sid : null;
  } catch {
    return null;
  }
}
