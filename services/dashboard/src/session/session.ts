import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** A visitor who has not signed in still gets a session: it is what the sign-in form's CSRF token is bound to. */
const ANONYMOUS_SESSION_SECONDS = 12 * 60 * 60;

export const sessionSchema = z.object({
  /** Random per session and renewed at sign-in (no fixation); CSRF tokens are derived from it. */
  sid: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  /** Unix seconds. A signed-in session ends with its JWT, whatever the browser does with Max-Age. */
  exp: z.number().int(),
  /** The user's JWT, or null before sign-in. */
  token: z.string().min(1).max(3000).nullable(),
});

export type Session = z.infer<typeof sessionSchema>;

const newSid = (): string => randomBytes(16).toString('base64url');
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function anonymousSession(): Session {
  return { sid: newSid(), exp: nowSeconds() + ANONYMOUS_SESSION_SECONDS, token: null };
}

/** After a successful login: a new session id, expiring when the token does. */
export function signedInSession(token: string, expiresAt: string): Session {
  const exp = Math.floor(Date.parse(expiresAt) / 1000);
  return { sid: newSid(), exp: Number.isFinite(exp) ? exp : nowSeconds(), token };
}

export const isSignedIn = (session: Session): session is Session & { token: string } => session.token !== null;
